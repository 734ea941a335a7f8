package dev.lacuna.bench;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvStats;
import dev.lacuna.kv.KvStore;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.NioVfs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Write and space amplification after a fixed workload (BENCHMARKS.md §5), on the key/value store with default
 * options on real files: {@code keys} keys of 16 bytes with 100-byte values loaded in random order, then as many
 * overwrites of random keys, then a tenth of the keys deleted; then a flush, and the figures once background
 * compaction has gone quiet (no compaction for 5 s).
 *
 * <ul>
 *   <li>write amplification: bytes written to disk (log payloads, flushed tables, compacted tables) over the key and
 *       value bytes users wrote ({@link KvStats#userBytesWritten()});</li>
 *   <li>space amplification: bytes of the store's files on disk (tables, log, manifest) over the live data, the key
 *       and value bytes of the keys that remain.</li>
 * </ul>
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.lacuna.bench.AmplificationReport [keys]} (1,000,000 by
 * default). Deterministic (fixed seed) apart from when background work runs.
 */
public final class AmplificationReport {
    private static final int KEY_BYTES = 16;
    private static final int VALUE_BYTES = 100;

    private AmplificationReport() {
    }

    public static void main(String[] args) throws Exception {
        int keys = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Path dir = Files.createTempDirectory("lacuna-amplification");
        try {
            run(dir, keys);
        } finally {
            delete(dir);
        }
    }

    private static void run(Path dir, int keys) throws Exception {
        Random random = new Random(42);
        boolean[] live = new boolean[keys];
        KvOptions options = KvOptions.builder().vfs(new NioVfs()).durability(Durability.NONE).build();
        try (KvStore kv = KvStore.open(dir, options)) {
            int[] order = new int[keys];
            for (int i = 0; i < keys; i++) {
                order[i] = i;
            }
            for (int i = keys - 1; i > 0; i--) { // shuffled: each key once, in random order
                int j = random.nextInt(i + 1);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            for (int k : order) {
                kv.put(key(k), value(random));
                live[k] = true;
            }
            for (int i = 0; i < keys; i++) {
                int k = random.nextInt(keys);
                kv.put(key(k), value(random));
            }
            for (int i = 0; i < keys / 10; i++) {
                int k = random.nextInt(keys);
                kv.delete(key(k));
                live[k] = false;
            }
            kv.flush();
            long quietSince = System.nanoTime();
            long compactions = -1;
            while (System.nanoTime() - quietSince < 5_000_000_000L) { // a report, not a test: poll until quiet
                long now = kv.stats().compactions();
                if (now != compactions) {
                    compactions = now;
                    quietSince = System.nanoTime();
                }
                Thread.sleep(200);
            }
            KvStats stats = kv.stats();
            long liveKeys = 0;
            for (boolean l : live) {
                if (l) {
                    liveKeys++;
                }
            }
            long liveBytes = liveKeys * (KEY_BYTES + VALUE_BYTES);
            long logWritten = stats.wal().appendedBytes();
            long written = logWritten + stats.flushBytesWritten() + stats.compactionBytesWritten();
            long disk = du(dir);
            System.out.printf("workload: %,d keys of %d bytes with %d-byte values loaded, %,d overwrites, %,d deletes"
                    + " (%,d keys live); JDK %s, %d cores%n", keys, KEY_BYTES, VALUE_BYTES, keys, keys / 10, liveKeys,
                    System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
            System.out.printf("user bytes written %,d; to disk: log %,d + flushes %,d + compactions %,d = %,d%n",
                    stats.userBytesWritten(), logWritten, stats.flushBytesWritten(), stats.compactionBytesWritten(),
                    written);
            System.out.printf("write amplification %.2f (%.2f without the log)%n",
                    (double) written / stats.userBytesWritten(),
                    (double) (written - logWritten) / stats.userBytesWritten());
            System.out.printf("files on disk %,d bytes (log %,d), live data %,d bytes: space amplification %.2f%n",
                    disk, kv.logBytes(), liveBytes, (double) disk / liveBytes);
            System.out.printf("flushes %d, compactions %d, trivial moves %d%n", stats.flushes(), stats.compactions(),
                    stats.trivialMoves());
        }
    }

    /** A fresh array each time: the store keeps the one it is given. Random bytes: incompressible. */
    private static byte[] value(Random random) {
        byte[] value = new byte[VALUE_BYTES];
        random.nextBytes(value);
        return value;
    }

    private static byte[] key(int k) {
        return ByteBuffer.allocate(KEY_BYTES).putLong(0x6b65790000000000L).putLong(k).array();
    }

    private static long du(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0; // deleted meanwhile
                }
            }).sum();
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
