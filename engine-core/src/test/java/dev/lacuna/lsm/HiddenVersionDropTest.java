package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A memtable drops the puts a newer put hides from every reader ({@link Memtable#add} with a safe sequence), and
 * keeps every version some reader may still read: one a snapshot sees, one the safe sequence does not cover yet, and
 * everything under a deletion.
 */
class HiddenVersionDropTest {
    private static final byte[] KEY = "item#1".getBytes(StandardCharsets.UTF_8);

    private final Memtable mem = new Memtable();
    private final Snapshots snapshots = new Snapshots();
    private final Memtable.Scratch scratch = new Memtable.Scratch();

    private void put(long sequence, long safe) {
        add(sequence, InternalKey.KIND_PUT, safe);
    }

    private void add(long sequence, int kind, long safe) {
        byte[] value = kind == InternalKey.KIND_PUT ? ("v" + sequence).getBytes(StandardCharsets.UTF_8) : new byte[0];
        mem.add(mem.place(KEY, kind, value), sequence, scratch, safe, snapshots);
    }

    /** The sequences of the key's versions held, newest first. */
    private List<Long> versions() {
        List<Long> out = new ArrayList<>();
        try (InternalIterator it = mem.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                out.add(InternalKey.sequence(it.key()));
            }
        }
        return out;
    }

    @Test
    void aKeyOverwrittenInALoopHoldsItsLastVersionsOnly() {
        for (long s = 1; s <= 1_000; s++) {
            put(s, s - 1); // every write before this one visible to every reader, as a quiet store's
        }
        // The newest (1000) and the one it will hide once it is safe (999): the rest were dropped as they were hidden.
        assertThat(versions()).containsExactly(1_000L, 999L);
        assertThat(mem.hiddenDropped()).isEqualTo(998);
        assertThat(mem.liveEntries()).isEqualTo(2);
        assertThat(new String(mem.get(KEY, InternalKey.MAX_SEQUENCE)[1], StandardCharsets.UTF_8)).isEqualTo("v1000");
    }

    @Test
    void keepsWhatAReadBelowTheSafeSequenceMayNeed() {
        put(1, 0);
        put(2, 1);
        put(3, 1); // 2 hides 1, but a read may still be at 1
        assertThat(versions()).containsExactly(3L, 2L, 1L);
        put(4, 2); // now no read is below 2
        assertThat(versions()).containsExactly(4L, 3L, 2L);
    }

    @Test
    void keepsTheVersionASnapshotSees() {
        put(1, 0);
        put(2, 1);
        snapshots.acquire(2);
        put(3, 2);
        put(4, 3); // 3 hides 2, which the snapshot at 2 reads
        put(5, 4); // 4 hides 3: dropped; 2 stays under it for the snapshot
        assertThat(versions()).containsExactly(5L, 4L, 2L);
        assertThat(new String(mem.get(KEY, 2)[1], StandardCharsets.UTF_8)).isEqualTo("v2");
        snapshots.release(2);
        put(6, 5);
        assertThat(versions()).containsExactly(6L, 5L);
    }

    @Test
    void keepsADeletionAndEverythingUnderIt() {
        put(1, 0);
        add(2, InternalKey.KIND_DELETE, 1);
        put(3, 2);
        put(4, 3);
        put(5, 4); // 4 hides 3: dropped; the deletion under 4 and the put under it stay
        assertThat(versions()).containsExactly(5L, 4L, 2L, 1L);
    }

    @Test
    void dropsABacklogAFewVersionsAtATime() {
        for (long s = 1; s <= 20; s++) {
            put(s, 0); // a long read held the safe sequence back: nothing dropped
        }
        assertThat(versions()).hasSize(20);
        put(21, 20);
        assertThat(versions()).hasSize(21 - 4); // four of the puts under 20
        for (long s = 22; s <= 25; s++) {
            put(s, s - 1);
        }
        assertThat(versions()).containsExactly(25L, 24L, 3L, 2L, 1L); // four more at each write
        put(26, 25);
        assertThat(versions()).containsExactly(26L, 25L);
    }

    @Test
    void otherKeysAreUntouched() {
        byte[] before = "item#0".getBytes(StandardCharsets.UTF_8);
        byte[] after = "item#2".getBytes(StandardCharsets.UTF_8);
        mem.add(mem.place(before, InternalKey.KIND_PUT, new byte[1]), 1, scratch, 0, snapshots);
        mem.add(mem.place(after, InternalKey.KIND_PUT, new byte[1]), 2, scratch, 0, snapshots);
        for (long s = 3; s <= 10; s++) {
            put(s, s - 1);
        }
        assertThat(mem.get(before, InternalKey.MAX_SEQUENCE)).isNotNull();
        assertThat(mem.get(after, InternalKey.MAX_SEQUENCE)).isNotNull();
        assertThat(mem.size()).isEqualTo(4);
    }
}
