package dev.lacuna.lsm;

import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

/**
 * Run in a child JVM by {@link ReplayFallbackHeapReviewTest}: {@code write <dir> <megabytes>} writes as
 * {@link ReplayHeapChild} does, then appends one log record that writes a key twice (as this engine never does, so
 * straight to the log), and halts. The store is opened by {@code ReplayHeapChild open}.
 */
public final class ReplayFallbackHeapReviewChild {
    private ReplayFallbackHeapReviewChild() {
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        long entries = Long.parseLong(args[1]) * 1_000_000 / ReplayHeapChild.VALUE;
        Random random = new Random(42);
        LsmStore kv = LsmStore.open(dir, ReplayHeapChild.options());
        for (long i = 0; i < entries; i += 10) {
            WriteBatch batch = new WriteBatch();
            for (long j = i; j < i + 10; j++) {
                byte[] value = new byte[ReplayHeapChild.VALUE];
                random.nextBytes(value);
                batch.put(ByteBuffer.allocate(8).putLong(j).array(), value);
            }
            kv.write(batch, Durability.NONE);
        }
        byte[] twice = ByteBuffer.allocate(8).putLong(entries).array();
        LsmInternals.db(kv).wal.append(BatchCodec.encode(List.of(new WriteBatch.Op(WriteBatch.KIND_PUT, twice,
                new byte[] {1}), new WriteBatch.Op(WriteBatch.KIND_PUT, twice, new byte[] {2})), 0, 0), Durability.SYNC);
        System.out.println("wrote " + entries);
        System.out.flush();
        Runtime.getRuntime().halt(0); // no close: the next open replays the log
    }
}
