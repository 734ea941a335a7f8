package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.DeleteItem;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The background checkpoint (from its adversarial review): the updater applies records between the checkpoint's LSN choice and its
 * memtable switch (held in the checkpoint thread's log sync), then during the flush and after; power is lost
 * once the checkpoint is durable. After the reopen the GSI must equal the table.
 */
class CheckpointRaceCrashTest {
    private static final Duration WAIT = Duration.ofSeconds(120);

    /** Holds the first fsync made on a checkpoint thread until released. */
    static final class HoldVfs extends ForwardingVfs {
        final AtomicBoolean armed = new AtomicBoolean(true);
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        HoldVfs(MemVfs mem) {
            super(mem);
        }

        @Override
        protected VfsFile wrap(VfsFile f) {
            return new ForwardingVfs.File(f) {
                @Override
                public void force() throws IOException {
                    if (Thread.currentThread().getName().startsWith("lacuna-checkpoint-") && armed.compareAndSet(true, false)) {
                        held.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    super.force();
                }
            };
        }
    }

    private final TreeMap<String, String> open = new TreeMap<>(); // pk -> GSI1SK (of items in the index)

    private void put(Table t, String pk, String sk, String note, Durability d) {
        t.putItem(new PutItem(Item.builder().s("pk", pk).s("GSI1PK", "Q").s("GSI1SK", sk).s("note", note).build())
                .durability(d));
        open.put(pk, sk + "/" + note);
    }

    private void delete(Table t, String pk, Durability d) {
        t.deleteItem(new DeleteItem(Key.of("pk", AttributeValue.s(pk))).durability(d));
        open.remove(pk);
    }

    private List<String> expected() {
        List<String> out = new ArrayList<>();
        new TreeMap<>(open).forEach((pk, v) -> out.add(v.substring(0, v.indexOf('/')) + "=" + pk + "/"
                + v.substring(v.indexOf('/') + 1)));
        out.sort(null);
        return out;
    }

    private static List<String> query(Database db) {
        List<String> seen = new ArrayList<>();
        for (Item item : db.table("Tickets").queryPaginator(new Query("GSI1PK = :q").index("GSI1")
                .value(":q", AttributeValue.s("Q")).readYourWrites(Duration.ofSeconds(60))).items()) {
            seen.add(item.getString("GSI1SK") + "=" + item.getString("pk") + "/" + item.getString("note"));
        }
        seen.sort(null);
        return seen;
    }

    private static String pad(int i) {
        return String.format("%06d", i);
    }

    @Test
    void indexEqualsTableAfterACrashPastACheckpointTakenWhileTheUpdaterApplied() throws Exception {
        run(false);
    }

    private static DatabaseOptions options(dev.lacuna.vfs.Vfs vfs, boolean small) {
        DatabaseOptions.Builder b = DatabaseOptions.builder().vfs(vfs);
        if (small) {
            b.storage(dev.lacuna.kv.KvOptions.builder().memtableBytes(4096).memoryBudget(64 * 1024)
                    .targetFileBytes(8192).levelBaseBytes(32 * 1024).build());
        }
        return b.build();
    }

    private void run(boolean small) throws Exception {
        MemVfs mem = new MemVfs();
        HoldVfs vfs = new HoldVfs(mem);
        MemVfs crashed;
        long checkpoint;
        try (Database db = Database.open(IndexEquivalenceTest.DIR, options(vfs, small))) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                    .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
            Table t = db.table("Tickets");
            String name = "index-" + db.describeTable("Tickets").index("GSI1").keyspace();
            long initial = IndexCrashTest.durableCheckpoints(mem).get(name);
            // A: not durable, so that the quiet checkpoint's log sync (on its own thread) is held.
            for (int i = 0; i < 200; i++) {
                put(t, "T" + pad(i), pad(i), "a", Durability.NONE);
            }
            assertThat(vfs.held.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("a checkpoint's log sync held").isTrue();
            long chosen = db.describeTable("Tickets").index("GSI1").appliedLsn();
            // B: applied between the checkpoint's LSN choice and its memtable switch.
            for (int i = 0; i < 50; i++) {
                delete(t, "T" + pad(i), Durability.NONE); // puts at or below the checkpoint, deleted after
            }
            for (int i = 50; i < 100; i++) {
                put(t, "T" + pad(i), pad(1000 + i), "moved", Durability.NONE); // the entry's key changes
            }
            for (int i = 100; i < 150; i++) {
                put(t, "T" + pad(i), pad(i), "b", Durability.NONE); // same entry key, newer version
            }
            for (int i = 200; i < 300; i++) {
                put(t, "T" + pad(i), pad(i), "b", Durability.NONE);
            }
            for (int i = 300; i < 350; i++) {
                put(t, "T" + pad(i), pad(i), "b", Durability.NONE);
                delete(t, "T" + pad(i), Durability.NONE);
            }
            assertThat(query(db)).as("before the switch").isEqualTo(expected());
            vfs.release.countDown();
            IndexChecker.await(() -> IndexCrashTest.durableCheckpoints(mem).getOrDefault(name, -1L) > initial, WAIT,
                    "checkpoint " + name + " moved");
            checkpoint = IndexCrashTest.durableCheckpoints(mem).get(name);
            // C: after the checkpoint, durable.
            for (int i = 150; i < 200; i++) {
                delete(t, "T" + pad(i), Durability.SYNC); // in the flushed files
            }
            for (int i = 200; i < 250; i++) {
                delete(t, "T" + pad(i), Durability.SYNC); // carried young entries
            }
            for (int i = 400; i < 450; i++) {
                put(t, "T" + pad(i), pad(i), "c", Durability.SYNC);
            }
            assertThat(query(db)).as("before the crash").isEqualTo(expected());
            long applied = db.describeTable("Tickets").index("GSI1").appliedLsn();
            System.out.println("checkpoint chosen near " + chosen + ", durable " + checkpoint + ", applied " + applied);
            crashed = mem.crashClone();
        }
        assertThat(checkpoint).as("a checkpoint below the log's end").isLessThan(Long.MAX_VALUE);
        try (Database db = Database.open(IndexEquivalenceTest.DIR, options(crashed, small))) {
            assertThat(query(db)).as("after the crash").isEqualTo(expected());
        }
    }
}
