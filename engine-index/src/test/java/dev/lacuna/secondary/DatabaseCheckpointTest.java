package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.PutItem;
import dev.lacuna.Scan;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactWrite;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.NioVfs;
import dev.lacuna.vfs.Vfs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Database#checkpoint} while SYNC writers run, with a global index kept from the log and tiny memtables so
 * that flushes, compactions, log trims and updater checkpoints race the copy. Each writer numbers its writes and
 * writes each as a transaction of two items — its numbered item and its head item, which carries the number and
 * moves between index partitions — so the copy must hold, per writer, its items 0 to n-1 with nothing after a
 * gap (a prefix), n at least the count acknowledged before the call, and the head at n-1 (a transaction whole).
 * Once the copy is opened and its index has caught up, the index equals its recomputation from the table.
 */
class DatabaseCheckpointTest {
    private static final int WRITERS = 3;
    private static final String TABLE = "Events";

    @TempDir
    Path tmp;

    private static DatabaseOptions options(Vfs vfs) {
        return DatabaseOptions.builder().vfs(vfs).durability(Durability.SYNC)
                .storage(KvOptions.builder().memtableBytes(8192).memoryBudget(64 * 1024).targetFileBytes(8192)
                        .levelBaseBytes(32 * 1024).maxManifestBytes(4096).build())
                .build();
    }

    @Test
    void shouldCopyAPrefixWithIndexesEqualToTheirRecomputationOnMemVfs() throws Exception {
        MemVfs vfs = new MemVfs();
        long[] ackedBefore = writeWhileCheckpointing(vfs, Path.of("/db"), Path.of("/backup"));
        try (Database copy = Database.open(Path.of("/backup"), options(vfs.crashClone()))) {
            check(copy, ackedBefore);
        }
    }

    @Test
    void shouldCopyAPrefixWithIndexesEqualToTheirRecomputationOnRealFiles() throws Exception {
        NioVfs vfs = new NioVfs();
        long[] ackedBefore = writeWhileCheckpointing(vfs, tmp.resolve("db"), tmp.resolve("backup"));
        try (Database copy = Database.open(tmp.resolve("backup"), options(vfs))) {
            check(copy, ackedBefore);
        }
    }

    @Test
    void shouldRefuseAClosedDatabaseAndADestinationInUse() throws Exception {
        Database db = Database.open(tmp.resolve("db"));
        db.createTable(spec());
        Files.createDirectories(tmp.resolve("used"));
        Files.writeString(tmp.resolve("used/notes.txt"), "mine");
        assertThatThrownBy(() -> db.checkpoint(tmp.resolve("used"))).isInstanceOf(StorageIOException.class)
                .hasMessageContaining("not empty");
        assertThat(Files.readString(tmp.resolve("used/notes.txt"))).isEqualTo("mine");
        db.close();
        assertThatThrownBy(() -> db.checkpoint(tmp.resolve("copy"))).isInstanceOf(DatabaseClosedException.class);
        assertThat(tmp.resolve("copy")).doesNotExist();
    }

    private static TableSpec spec() {
        return TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S)
                .index(IndexSpec.global("ByGroup", KeyAttribute.s("g"), KeyAttribute.n("seq"))).build();
    }

    private static Item item(String pk, int writer, int seq) {
        return Item.builder().s("pk", pk).s("g", "G" + (seq % 5)).n("seq", seq).n("writer", writer).build();
    }

    /** Runs the writers, takes the checkpoint, lets them go on; returns what each had acknowledged before the call. */
    private static long[] writeWhileCheckpointing(Vfs vfs, Path dir, Path dest) throws Exception {
        AtomicLongArray acked = new AtomicLongArray(WRITERS);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch warm = new CountDownLatch(WRITERS * 100);
        AtomicReference<CountDownLatch> after = new AtomicReference<>();
        long[] before = new long[WRITERS];
        try (Database db = Database.open(dir, options(vfs))) {
            db.createTable(spec());
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                Thread t = new Thread(() -> {
                    try {
                        for (int i = 0; !stop.get(); i++) {
                            db.transactWriteItems(List.of(
                                    new TransactWrite(TABLE, new PutItem(item(String.format("W%d#%06d", writer, i), writer, i))),
                                    new TransactWrite(TABLE, new PutItem(item("H" + writer, writer, i)))));
                            acked.set(writer, i + 1);
                            warm.countDown();
                            CountDownLatch counting = after.get();
                            if (counting != null) {
                                counting.countDown();
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "db-checkpoint-test-writer-" + w);
                writers.add(t);
                t.start();
            }
            assertThat(warm.await(60, TimeUnit.SECONDS)).as("writers warmed up").isTrue();
            for (int w = 0; w < WRITERS; w++) {
                before[w] = acked.get(w);
            }
            db.checkpoint(dest);
            CountDownLatch more = new CountDownLatch(WRITERS * 30);
            after.set(more);
            boolean wentOn = more.await(60, TimeUnit.SECONDS);
            stop.set(true);
            for (Thread t : writers) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(t.isAlive()).as(t.getName() + " stopped").isFalse();
            }
            if (failure.get() != null) {
                throw new AssertionError("a writer failed", failure.get());
            }
            assertThat(wentOn).as("writes went on after the checkpoint").isTrue();
        }
        return before;
    }

    private static void check(Database copy, long[] ackedBefore) {
        List<Item> items = IndexChecker.scanAll(copy, TABLE, new Scan());
        TreeMap<Integer, TreeSet<Integer>> numbered = new TreeMap<>();
        TreeMap<Integer, Integer> heads = new TreeMap<>();
        for (Item item : items) {
            String pk = ((AttributeValue.S) item.get("pk")).value();
            int writer = ((AttributeValue.N) item.get("writer")).value().intValue();
            int seq = ((AttributeValue.N) item.get("seq")).value().intValue();
            if (pk.startsWith("H")) {
                heads.put(writer, seq);
            } else {
                numbered.computeIfAbsent(writer, w -> new TreeSet<>()).add(seq);
            }
        }
        for (int w = 0; w < WRITERS; w++) {
            TreeSet<Integer> seqs = numbered.getOrDefault(w, new TreeSet<>());
            int n = seqs.size();
            assertThat(n).as("writer " + w + ": items acknowledged before the checkpoint").isGreaterThanOrEqualTo((int) ackedBefore[w]);
            assertThat(seqs.isEmpty() ? -1 : seqs.last()).as("writer " + w + ": a prefix, no gap").isEqualTo(n - 1);
            // A writer that had written nothing when the copy was taken (its start can lag on a loaded machine: the
            // warm-up counts all writers' writes together) has no head in it either.
            assertThat(heads.getOrDefault(w, -1)).as("writer " + w + ": the head written with its last item").isEqualTo(n - 1);
        }
        List<IndexChecker.Report> reports = IndexChecker.checkAll(copy, TABLE, Duration.ofSeconds(60));
        assertThat(reports).hasSize(1);
        assertThat(reports.get(0).expected()).isEqualTo(items.size());
        assertThat(IndexChecker.mismatches(reports)).as(reports.toString()).isZero();
    }
}
