package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Review of ef43bf8: Memtable#dropHidden's Javadoc says a deletion stays "and so does every version under it". The
 * walk passed versions above the safe sequence, a deletion among them, and took a put under that deletion as the
 * hider: the put under it went. Harmless to readers (the hider is visible to every reader), but the documented
 * invariant the dead pairs' purge might lean on did not hold; the walk now stops at a deletion.
 */
class HiddenDropUnderDeletionReviewTest {
    private static final byte[] KEY = "item#1".getBytes(StandardCharsets.UTF_8);

    @Test
    void everyVersionUnderADeletionStays() {
        Memtable mem = new Memtable();
        Snapshots snapshots = new Snapshots();
        Memtable.Scratch scratch = new Memtable.Scratch();
        mem.add(mem.place(KEY, InternalKey.KIND_PUT, bytes("v1")), 1, scratch, 0, snapshots);
        mem.add(mem.place(KEY, InternalKey.KIND_PUT, bytes("v2")), 2, scratch, 0, snapshots);
        mem.add(mem.place(KEY, InternalKey.KIND_DELETE, new byte[0]), 3, scratch, 0, snapshots);
        mem.add(mem.place(KEY, InternalKey.KIND_PUT, bytes("v4")), 4, scratch, 2, snapshots); // safe: 2, below the deletion
        List<Long> held = new ArrayList<>();
        try (InternalIterator it = mem.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                held.add(InternalKey.sequence(it.key()));
            }
        }
        assertThat(held).as("versions held, newest first").containsExactly(4L, 3L, 2L, 1L);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
