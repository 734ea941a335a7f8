package dev.lacuna.lsm;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;

/**
 * Run in child JVMs by {@link ReplayHeapTest}. {@code write <dir> <megabytes>}: writes that many megabytes of values
 * that no memtable limit flushes, then halts without closing (the log holds them all). {@code open <dir>}: opens the
 * store, so replaying them, and prints {@code opened <entries>}.
 */
public final class ReplayHeapChild {
    static final int VALUE = 1000;

    private ReplayHeapChild() {
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[1]);
        KvOptions options = options();
        if (args[0].equals("write")) {
            long entries = Long.parseLong(args[2]) * 1_000_000 / VALUE;
            Random random = new Random(42);
            LsmStore kv = LsmStore.open(dir, options);
            for (long i = 0; i < entries; i += 10) {
                WriteBatch batch = new WriteBatch();
                for (long j = i; j < i + 10; j++) {
                    byte[] value = new byte[VALUE];
                    random.nextBytes(value);
                    batch.put(ByteBuffer.allocate(8).putLong(j).array(), value);
                }
                kv.write(batch, Durability.NONE);
            }
            System.out.println("wrote " + entries);
            System.out.flush();
            Runtime.getRuntime().halt(0); // no close: the next open replays the log
        }
        try (LsmStore kv = LsmStore.open(dir, options)) {
            System.out.println("opened " + kv.stats());
        }
    }

    static KvOptions options() {
        return KvOptions.builder().memtableBytes(1L << 30).memoryBudget(1L << 30).maxTotalLogSize(1L << 32)
                .partitions(1).build();
    }
}
