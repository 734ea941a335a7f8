package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.IndexStatus;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.TableSpec;
import dev.lacuna.index.ChangeLog;
import dev.lacuna.index.IndexEntry;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.LacunaException;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A GSI updater that fails for good (here: the log it reads is damaged) reports it to a read-your-writes reader waiting
 * for it as the API's {@link LacunaException}, naming the index and its state, as a query that finds the
 * index failed already does. Found by the fault campaign: a query waiting while the updater hit an injected
 * I/O error escaped as a bare {@code IllegalStateException}.
 */
class UpdaterFailureTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldReportItsFailureToAWaitingReaderAsALacunaException() throws InterruptedException {
        GlobalIndexUpdater updater = new GlobalIndexUpdater(new FailingLog(), new IndexEntries(new FailingLog()));
        updater.start(null);
        try {
            IndexChecker.await(() -> updater.status() == IndexStatus.FAILED, WAIT, "the updater failing");
            assertThatThrownBy(() -> updater.awaitApplied(5, WAIT))
                    .isInstanceOf(LacunaException.class)
                    .hasMessage("index GSI1 of table Tickets is FAILED: cannot read the log (injected)"
                            + " (file /db/wal/0000000000000001.wal, offset 40)")
                    .hasCauseInstanceOf(CorruptionException.class);
            assertThat(updater.appliedLsn()).isZero();
        } finally {
            updater.close();
        }
    }

    /**
     * A query of a GSI whose updater failed says why, with the failure as its cause: here the updater read a
     * damaged table of its index, and the query must name that table (the corruption-at-rest suite found the
     * query saying only "index ByQueue of table Tickets is FAILED", nothing about which file was damaged).
     */
    @Test
    void shouldNameTheCauseWhenAQueryFindsTheIndexFailed() throws IOException {
        MemVfs vfs = new MemVfs();
        int index;
        TableSpec spec = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                .index(IndexSpec.global("ByQueue", KeyAttribute.s("queue"), null)).build();
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            db.createTable(spec);
            for (int i = 0; i < 20; i++) {
                db.putItem("Tickets", new PutItem(Item.builder().s("pk", "T" + i).s("queue", "Q" + i % 2).build()));
            }
            IndexChecker.awaitCatchUp(db, "Tickets", "ByQueue", WAIT);
            db.flush();
            index = db.describeTable("Tickets").index("ByQueue").keyspace();
        }
        List<String> tables = new ArrayList<>();
        for (String name : vfs.list(DIR)) {
            if (name.endsWith(".sst") && CorruptionTargets.keyspaceOf(vfs.readAll(DIR.resolve(name))) == index) {
                tables.add(name);
                try (VfsFile f = vfs.open(DIR.resolve(name))) {
                    f.truncate(f.size() - 1); // the footer cut short: the table cannot be opened
                }
            }
        }
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            db.putItem("Tickets", new PutItem(Item.builder().s("pk", "T0").s("queue", "Q1").build()));
            IndexChecker.await(() -> db.describeTable("Tickets").index("ByQueue").status() == IndexStatus.FAILED,
                    WAIT, "the updater failing on its damaged table");
            assertThatThrownBy(() -> db.query("Tickets", new Query("queue = :q").index("ByQueue").value(":q",
                    AttributeValue.s("Q1"))))
                    .isInstanceOf(LacunaException.class)
                    .hasMessageStartingWith("index ByQueue of table Tickets is FAILED: ")
                    .hasMessageMatching("(?s).*\\d{6}\\.sst.*")
                    .hasRootCauseInstanceOf(CorruptionException.class);
        }
        assertThat(tables).as("the index's tables").isNotEmpty();
    }

    /**
     * A GSI that failed for good no longer keeps the log (its checkpoint is removed: finding 9 of "Lose nothing
     * under the faults production sees", a FAILED index pinned the log forever) and is built again from the table
     * at the next open, equal to its recomputation. The failure is a bug's kind (an unexpected runtime error)
     * met by the updater alone while it reads the log, so the store itself goes on.
     */
    @Test
    void shouldReleaseTheLogOfAFailedIndexAndRebuildItAtTheNextOpen() throws IOException {
        MemVfs mem = new MemVfs();
        AtomicBoolean armed = new AtomicBoolean();
        Vfs vfs = new ForwardingVfs(mem) {
            @Override
            protected VfsFile wrap(VfsFile file) {
                return new File(file) {
                    @Override
                    public int read(ByteBuffer dst, long position) throws IOException {
                        if (armed.get() && file.name().endsWith(".wal")
                                && Thread.currentThread().getName().startsWith("lacuna-index-")) {
                            throw new IllegalStateException("injected: a bug in the updater's read of the log");
                        }
                        return super.read(dst, position);
                    }
                };
            }
        };
        TableSpec spec = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                .index(IndexSpec.global("ByQueue", KeyAttribute.s("queue"), null)).build();
        String checkpoint;
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            db.createTable(spec);
            for (int i = 0; i < 20; i++) {
                db.putItem("Tickets", new PutItem(Item.builder().s("pk", "T" + i).s("queue", "Q" + i % 2).build()));
            }
            IndexChecker.awaitCatchUp(db, "Tickets", "ByQueue", WAIT);
            checkpoint = "index-" + db.describeTable("Tickets").index("ByQueue").keyspace();
            IndexChecker.await(() -> IndexCrashTest.durableCheckpoints(mem).containsKey(checkpoint), WAIT,
                    "the index's checkpoint recorded");
            armed.set(true);
            db.putItem("Tickets", new PutItem(Item.builder().s("pk", "T20").s("queue", "Q0").build()));
            IndexChecker.await(() -> db.describeTable("Tickets").index("ByQueue").status() == IndexStatus.FAILED,
                    WAIT, "the updater failing");
            IndexChecker.await(() -> !IndexCrashTest.durableCheckpoints(mem).containsKey(checkpoint), WAIT,
                    "the failed index's checkpoint removed");
            db.putItem("Tickets", new PutItem(Item.builder().s("pk", "T21").s("queue", "Q1").build())); // the store goes on
            armed.set(false);
        }
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            IndexChecker.await(() -> db.describeTable("Tickets").index("ByQueue").status() == IndexStatus.ACTIVE,
                    WAIT, "the index rebuilt");
            List<IndexChecker.Report> reports = IndexChecker.checkAll(db, "Tickets", WAIT);
            assertThat(IndexChecker.mismatches(reports)).as("the rebuilt index against its recomputation").isZero();
            assertThat(db.query("Tickets", new Query("queue = :q").index("ByQueue").value(":q", AttributeValue.s("Q1")))
                    .items()).extracting(i -> ((AttributeValue.S) i.get("pk")).value()).contains("T21");
        }
    }

    /**
     * A power loss at any manifest edit of the open that rebuilds a failed index (restartBackfills: create the
     * new keyspace, point the table's descriptor at it, drop the old one) leaves a store that opens. Found by an
     * adversarial review: dropping first left a descriptor naming a dropped keyspace ("no keyspace 2" at every
     * later open).
     */
    @Test
    void shouldOpenAfterACrashDuringTheRebuildOfAFailedIndex() throws IOException {
        MemVfs mem = new MemVfs();
        AtomicBoolean armed = new AtomicBoolean();
        AtomicBoolean capturing = new AtomicBoolean();
        List<MemVfs> crashes = new ArrayList<>();
        Vfs vfs = new ForwardingVfs(mem) {
            @Override
            protected VfsFile wrap(VfsFile file) {
                return new File(file) {
                    @Override
                    public int read(ByteBuffer dst, long position) throws IOException {
                        if (armed.get() && file.name().endsWith(".wal")
                                && Thread.currentThread().getName().startsWith("lacuna-index-")) {
                            throw new IllegalStateException("injected: a bug in the updater's read of the log");
                        }
                        return super.read(dst, position);
                    }

                    @Override
                    public void force() throws IOException {
                        super.force();
                        if (capturing.get() && file.name().contains("MANIFEST")) {
                            crashes.add(mem.crashClone());
                        }
                    }
                };
            }
        };
        TableSpec spec = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                .index(IndexSpec.global("ByQueue", KeyAttribute.s("queue"), null)).build();
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            db.createTable(spec);
            for (int i = 0; i < 20; i++) {
                db.putItem("Tickets", new PutItem(Item.builder().s("pk", "T" + i).s("queue", "Q" + i % 2).build()));
            }
            IndexChecker.awaitCatchUp(db, "Tickets", "ByQueue", WAIT);
            armed.set(true);
            db.putItem("Tickets", new PutItem(Item.builder().s("pk", "T20").s("queue", "Q0").build()));
            IndexChecker.await(() -> db.describeTable("Tickets").index("ByQueue").status() == IndexStatus.FAILED,
                    WAIT, "the updater failing");
            armed.set(false);
        }
        capturing.set(true);
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            capturing.set(false);
        }
        assertThat(crashes).isNotEmpty();
        for (int i = 0; i < crashes.size(); i++) {
            MemVfs crashed = crashes.get(i);
            try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(crashed).build())) {
                IndexChecker.await(() -> db.describeTable("Tickets").index("ByQueue").status() == IndexStatus.ACTIVE,
                        WAIT, "the index rebuilt after crash point " + i);
            } catch (RuntimeException e) {
                throw new AssertionError("crash point " + i + " of " + crashes.size() + ": the store does not open", e);
            }
        }
    }

    /** The context of a GSI whose log cannot be read. */
    static final class FailingLog extends TicketsIndexContext { // also failing the updater in IndexSignalsTest
        @Override
        public long lastLsn() {
            return 5;
        }

        @Override
        public ChangeLog readChanges(long afterLsn) {
            return new ChangeLog() {
                @Override
                public dev.lacuna.index.ChangeRecord next(Duration timeout) {
                    // Permanent: a transient error (an I/O error) would be retried instead.
                    throw new CorruptionException("/db/wal/0000000000000001.wal", 40, "cannot read the log (injected)");
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public IndexEntry entry(AttributeValue pk, AttributeValue sk, Key baseKey, Item projected) {
            throw new UnsupportedOperationException("no item reaches the index");
        }

        @Override
        public void apply(WriteBatch batch, long lsn) {
            throw new UnsupportedOperationException("no record is read");
        }

        @Override
        public void checkpoint(long lsn) {
            throw new UnsupportedOperationException("nothing is applied");
        }
    }
}
