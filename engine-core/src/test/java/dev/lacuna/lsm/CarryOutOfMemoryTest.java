package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A freeze for dead entries whose copy of the carried puts runs out of memory must lose none of them: the memtable
 * was marked as carried from before its copy was made, so that when the copy failed it stayed active marked so, and
 * the flush of a later whole freeze left those puts out (review of 664970d: a 64 MB entry gone after a flush, its
 * write told OutOfMemoryError). The memtable is now marked once the copy is made, and a copy that finds no memory
 * freezes the memtable whole instead. In a child JVM with a 200 MB heap ({@link CarryOutOfMemoryChild}).
 */
class CarryOutOfMemoryTest {
    @Test
    void shouldLoseNoPutWhenTheCarryRunsOutOfMemory() throws Exception {
        List<String> lines = ChildJvm.run("-Xmx200m", CarryOutOfMemoryChild.class);
        assertThat(lines).as("the child's report").contains("deletion applied", "frozen memtable holds it, carried false")
                .noneMatch(l -> l.contains("carried true"));
    }
}
