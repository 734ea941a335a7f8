package dev.lacuna.secondary;

import dev.lacuna.index.IndexDiff;
import dev.lacuna.index.IndexEntry;
import dev.lacuna.kv.WriteBatch;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The index writes of several log records, applied as one {@link WriteBatch} at one sequence number: the last
 * write of each key, and — where it is safe — nothing at all for an entry the records both created and
 * deleted. Applied one record at a time, such an entry's put and delete met in the memtable and annihilated
 * (WritePath's put/delete annihilation, which keeps a queue's closed tickets from leaving tombstones); in one
 * batch only the delete would be left, a tombstone every reader of the queue then steps over.
 */
final class IndexBatch {
    private final Map<ByteBuffer, WriteBatch.Op> last = new LinkedHashMap<>();
    /** Keys whose first write in the batch created the entry (the item before it had no such entry). */
    private final Set<ByteBuffer> created = new HashSet<>();

    /** Adds the writes that take an item's entries from {@code before} to {@code after}. */
    void add(List<IndexEntry> before, List<IndexEntry> after) {
        WriteBatch diff = new WriteBatch();
        if (!IndexDiff.add(diff, before, after)) {
            return;
        }
        for (WriteBatch.Op op : diff.ops()) {
            ByteBuffer key = ByteBuffer.wrap(op.key());
            WriteBatch.Op previous = last.put(key, op);
            if (previous == null && op.kind() == WriteBatch.KIND_PUT && !has(before, op.key())) {
                created.add(key);
            }
        }
    }

    private static boolean has(List<IndexEntry> entries, byte[] key) {
        for (IndexEntry e : entries) {
            if (Arrays.equals(e.key(), key)) {
                return true;
            }
        }
        return false;
    }

    /** Keys written. */
    int size() {
        return last.size();
    }

    /**
     * The batch to apply. {@code dropCreatedAndDeleted}: leave out entries the batch created and deleted — only
     * when the index cannot hold a version of them newer than the batch's records (none of them was applied
     * before, as after a restart or a retry entries applied ahead of the checkpoint may be), since then the
     * index's newest version of such a key is already a deletion or nothing.
     */
    WriteBatch toWriteBatch(boolean dropCreatedAndDeleted) {
        WriteBatch batch = new WriteBatch();
        for (Map.Entry<ByteBuffer, WriteBatch.Op> e : last.entrySet()) {
            WriteBatch.Op op = e.getValue();
            if (op.kind() == WriteBatch.KIND_PUT) {
                batch.put(op.key(), op.value());
            } else if (!dropCreatedAndDeleted || !created.contains(e.getKey())) {
                batch.delete(op.key());
            }
        }
        return batch;
    }
}
