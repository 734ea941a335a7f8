package dev.lacuna.index;

import dev.lacuna.kv.WriteBatch;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Turns an item's index entries before and after a write into the index writes that take one to the other. */
public final class IndexDiff {
    private IndexDiff() {
    }

    /**
     * Adds to {@code batch} a delete of every entry of {@code before} whose key {@code after} lacks, and a put
     * of every entry of {@code after} that {@code before} lacks or holds with another value.
     *
     * @return whether anything was added
     */
    public static boolean add(WriteBatch batch, List<IndexEntry> before, List<IndexEntry> after) {
        if (before.isEmpty() && after.isEmpty()) {
            return false;
        }
        Map<ByteBuffer, byte[]> old = new HashMap<>();
        for (IndexEntry e : before) {
            old.put(ByteBuffer.wrap(e.key()), e.value());
        }
        boolean any = false;
        for (IndexEntry e : after) {
            byte[] was = old.remove(ByteBuffer.wrap(e.key()));
            if (was == null || !Arrays.equals(was, e.value())) {
                batch.put(e.key(), e.value());
                any = true;
            }
        }
        for (ByteBuffer key : old.keySet()) {
            batch.delete(key.array());
            any = true;
        }
        return any;
    }
}
