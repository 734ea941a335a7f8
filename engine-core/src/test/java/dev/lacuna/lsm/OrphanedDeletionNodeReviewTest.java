package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Review of 47e9248: {@link Memtable#place} now places a deletion's node in the arena and then searches for its key,
 * allocating a seek key and a copy of the sole put's key; an {@link OutOfMemoryError} there leaves the node placed,
 * and {@code WritePath.place} gives back only the entries placed before it: arena room that no count of memory holds
 * until the memtable is dropped. Before, the search ran (and allocated) before the node was placed. A child JVM
 * ({@link OrphanedDeletionNodeReviewChild}) runs the heap out at each allocation of a deletion's commit in turn.
 */
class OrphanedDeletionNodeReviewTest {
    @Test
    void shouldGiveBackTheNodeOfADeletionThatRanOutOfMemoryInPlace() throws Exception {
        List<String> lines = ChildJvm.run("-Xmx64m", OrphanedDeletionNodeReviewChild.class);
        lines.forEach(System.out::println);
        assertThat(lines).as("the child's report (else this tests nothing)")
                .anyMatch(l -> l.startsWith("out of memory ") && !l.startsWith("out of memory 0 "));
        assertThat(lines).as("deletions whose node was placed and neither given back nor counted")
                .noneMatch(l -> l.contains("orphan:"));
    }
}
