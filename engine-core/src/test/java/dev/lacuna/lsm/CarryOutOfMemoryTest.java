package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A freeze for dead entries whose copy of the carried puts runs out of memory must lose none of them: the memtable
 * was marked as carried from before its copy was made, so that when the copy failed it stayed active marked so, and
 * the flush of a later whole freeze left those puts out (review of 664970d: a 64 MB entry gone after a flush, its
 * write told OutOfMemoryError). The memtable is now marked once the copy is made, and a copy that finds no memory
 * freezes the memtable whole instead. In a child JVM with a 170 MB heap ({@link CarryOutOfMemoryChild}): the put
 * needs twice the value (the caller's array and the memtable's copy), the carry three times (the memtable's, the
 * value copied out and the new memtable's copy), so 170 MB lets the put in and fails the carry by some 20 MB. (At
 * 200 MB both fit or not by a few megabytes of other use: the carry's copy succeeded once recovery's build stopped
 * taking arrays, and the child's own check ran out instead.)
 */
class CarryOutOfMemoryTest {
    @Test
    void shouldLoseNoPutWhenTheCarryRunsOutOfMemory() throws Exception {
        List<String> lines = ChildJvm.run("-Xmx170m", CarryOutOfMemoryChild.class);
        assertThat(lines).as("the child's report").contains("deletion applied", "frozen memtable holds it, carried false")
                .noneMatch(l -> l.contains("carried true"));
    }
}
