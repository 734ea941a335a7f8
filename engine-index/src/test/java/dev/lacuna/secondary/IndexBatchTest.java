package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.index.IndexEntry;
import dev.lacuna.kv.WriteBatch;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link IndexBatch}: the last write of each key; an entry the batch created and deleted is left out only when
 * the index cannot hold a newer version of it (a batch of records never applied before), else its deletion
 * stays.
 */
class IndexBatchTest {
    private static IndexEntry entry(String key) {
        return new IndexEntry(key.getBytes(StandardCharsets.UTF_8), new byte[] {1});
    }

    private static List<String> ops(WriteBatch batch) {
        return batch.ops().stream().map(op -> (op.kind() == WriteBatch.KIND_PUT ? "put " : "delete ")
                + new String(op.key(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void shouldKeepTheLastWriteOfEachKeyAndLeaveOutAnEntryTheBatchCreatedAndDeleted() {
        IndexBatch batch = new IndexBatch();
        batch.add(List.of(entry("OLD")), List.of(entry("P1"))); // a ticket moves from OLD to P1
        batch.add(List.of(entry("P1")), List.of(entry("P3"))); // then on to P3
        batch.add(List.of(), List.of(entry("T9"))); // a ticket opens
        batch.add(List.of(entry("T9")), List.of()); // and closes
        assertThat(ops(batch.toWriteBatch(true))).containsExactlyInAnyOrder("delete OLD", "put P3");
        // Records that may have been applied before: a put of P1 or T9 may sit in the index, newer than the
        // batch's start, so their deletions stay.
        assertThat(ops(batch.toWriteBatch(false)))
                .containsExactlyInAnyOrder("delete OLD", "delete P1", "put P3", "delete T9");
    }

    @Test
    void shouldKeepTheDeletionOfAnEntryThatExistedBeforeTheBatch() {
        IndexBatch batch = new IndexBatch();
        batch.add(List.of(entry("K")), List.of(entry("K2"))); // K existed: its deletion must reach the index
        batch.add(List.of(entry("K2")), List.of(entry("K"))); // K back again
        batch.add(List.of(entry("K")), List.of()); // and gone
        assertThat(ops(batch.toWriteBatch(true))).containsExactlyInAnyOrder("delete K");
    }
}
