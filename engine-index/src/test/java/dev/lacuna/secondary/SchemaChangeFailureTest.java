package dev.lacuna.secondary;

import dev.lacuna.vfs.testing.HeldLogForce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.IndexStatus;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.PutItem;
import dev.lacuna.ResourceInUseException;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactWrite;
import dev.lacuna.item.KeyEncoding;
import dev.lacuna.kv.KeyspaceRouter;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.lsm.LsmStore;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A createTable or updateTable that fails part way (an fsync of the log or of the manifest fails once, a
 * transient error: the store stays writable) must leave the database as if it had not been called, or as if
 * it had succeeded: never a keyspace or a log checkpoint that no published table owns. Found by review: both
 * made keyspaces first and forced the log for a new stream's checkpoint after, so a failed fsync left a
 * table's keyspace in the manifest that the catalog never published (a retry made a second one), and an
 * updateTable's new index keyspace, checkpoint and maintainer that no table named.
 *
 * <p>What is left is read from power-loss images of the manifest, as a restart would find it.
 */
class SchemaChangeFailureTest {
    private static final Path DIR = IndexEquivalenceTest.DIR;
    private static final String TABLE = "Tickets";
    private static final StreamSpecification STREAM = StreamSpecification.enabled(StreamViewType.NEW_AND_OLD_IMAGES);
    private static final IndexSpec GSI = IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), null);
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static Database open(Vfs vfs) {
        // NONE: a write is visible before it is durable, so a new stream's checkpoint must force the log.
        return Database.open(DIR, DatabaseOptions.builder().vfs(vfs).durability(Durability.NONE).build());
    }

    private static TableSpec plain(String name) {
        return TableSpec.builder(name).partitionKey("pk", AttributeValue.Type.S).build();
    }

    /** A database with table Other holding one write not yet durable (the log has something to force). */
    private static Database withUnsyncedWrite(Vfs vfs) {
        Database db = open(vfs);
        db.createTable(plain("Other"));
        db.table("Other").putItem(new PutItem(Item.builder().s("pk", "o").build()));
        return db;
    }

    /** The keyspaces and log checkpoints a power loss now would leave. */
    private record Image(int keyspaces, Map<String, Long> checkpoints) {
        static Image of(MemVfs disk) {
            KvOptions options = KvOptions.builder().vfs(disk.crashClone()).partitions(1)
                    .keyspaceRouter(KeyspaceRouter.FIRST_FOUR_BYTES).keyPrefix(KeyEncoding::partitionPrefixLength).build();
            try (LsmStore kv = LsmStore.open(DIR, options, LsmStore.OWNER_ITEMS)) {
                return new Image(kv.keyspaces().size(), new TreeMap<>(kv.logCheckpoints()));
            }
        }

        List<String> named(String prefix) {
            return checkpoints.keySet().stream().filter(n -> n.startsWith(prefix)).toList();
        }
    }

    /** createTable again after it failed: it succeeds, or says the table exists (the failure published it). */
    private static void retryCreate(Database db, TableSpec spec) {
        try {
            db.createTable(spec);
        } catch (ResourceInUseException e) {
            // the first attempt kept the table: as good as success
        }
    }

    /**
     * After a reopen: {@code keyspaces} keyspaces (transaction tokens, Other, one Tickets and its indexes), stream
     * checkpoints of that Tickets only, and its stream works.
     */
    private static void assertOneStreamTableAfterReopen(MemVfs disk, int keyspaces) {
        Image image = Image.of(disk);
        assertThat(image.keyspaces()).as("keyspaces: transaction tokens, Other and one Tickets").isEqualTo(keyspaces);
        try (Database db = open(disk.crashClone())) {
            assertThat(db.listTables()).containsExactly("Other", TABLE);
            int id = db.describeTable(TABLE).id();
            assertThat(Image.of(disk).named("stream-")).as("stream checkpoints").isNotEmpty()
                    .allMatch(n -> n.startsWith("stream-" + id + "-"));
            db.table(TABLE).putItem(new PutItem(Item.builder().s("pk", "a").build()));
            try (var c = db.streamConsumer(TABLE, "app")) {
                assertThat(c.poll(10).records()).hasSize(1);
            }
        }
    }

    @Test
    void shouldLeaveNoUnpublishedTableWhenForcingTheLogForItsStreamFails() {
        MemVfs disk = new MemVfs();
        FailingForce vfs = new FailingForce(disk);
        TableSpec spec = plain(TABLE).withStreamSpecification(STREAM);
        try (Database db = withUnsyncedWrite(vfs)) {
            vfs.failNth(".wal", 1);
            assertThatThrownBy(() -> db.createTable(spec)).isInstanceOf(StorageIOException.class)
                    .hasMessageContaining("injected failure");
            assertThat(Image.of(disk).keyspaces()).as("keyspaces after the failed createTable: tokens and Other")
                    .isEqualTo(2);
            retryCreate(db, spec);
            assertThat(db.listTables()).containsExactly("Other", TABLE);
        }
        assertOneStreamTableAfterReopen(disk, 3);
    }

    @Test
    void shouldLeaveNoUnpublishedTableWhenInterruptedWaitingForTheLog() throws Exception {
        MemVfs disk = new MemVfs();
        HeldLogForce vfs = new HeldLogForce(disk);
        TableSpec spec = plain(TABLE).withStreamSpecification(STREAM);
        try (Database db = withUnsyncedWrite(vfs)) {
            // A SYNC write leads a group commit whose fsync is held: createTable, which must force the log past the
            // unsynced write, waits for that leader, and the interrupt ends the wait.
            vfs.hold();
            Thread writer = new Thread(() -> db.transactWriteItems(
                    List.of(new TransactWrite("Other", new PutItem(Item.builder().s("pk", "w").build()))), null,
                    Durability.SYNC));
            writer.start();
            try {
                assertThat(vfs.awaitHeld(WAIT.toNanos())).as("the SYNC write's fsync is held").isTrue();
                Thread.currentThread().interrupt();
                assertThatThrownBy(() -> db.createTable(spec)).isInstanceOf(StorageIOException.class)
                        .hasMessageContaining("interrupted");
            } finally {
                Thread.interrupted(); // the call that was interrupted failed; the thread goes on
                vfs.release();
                writer.join(WAIT.toMillis());
            }
            assertThat(writer.isAlive()).isFalse();
            assertThat(Image.of(disk).keyspaces()).as("keyspaces after the interrupted createTable: tokens and Other")
                    .isEqualTo(2);
            retryCreate(db, spec);
            assertThat(db.listTables()).containsExactly("Other", TABLE);
        }
        assertOneStreamTableAfterReopen(disk, 3);
    }

    @Test
    void shouldUndoATableCreationWhenRecordingItsStreamCheckpointFails() {
        MemVfs disk = new MemVfs();
        FailingForce vfs = new FailingForce(disk);
        TableSpec spec = TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S).index(GSI).build()
                .withStreamSpecification(STREAM);
        try (Database db = withUnsyncedWrite(vfs)) {
            // Manifest fsyncs: the index's keyspace, the table's with the index's checkpoint, the stream's checkpoint.
            vfs.failNth("MANIFEST-", 3);
            assertThatThrownBy(() -> db.createTable(spec)).isInstanceOf(StorageIOException.class)
                    .hasMessageContaining("cannot record checkpoint stream-");
            Image after = Image.of(disk);
            assertThat(after.keyspaces()).as("keyspaces after the failed createTable: tokens and Other").isEqualTo(2);
            assertThat(after.checkpoints()).as("log checkpoints after the failed createTable").isEmpty();
            retryCreate(db, spec);
            assertThat(db.listTables()).containsExactly("Other", TABLE);
        }
        assertOneStreamTableAfterReopen(disk, 4);
    }

    /** updateTable adding GSI1 and enabling the stream, failing at the {@code n}-th fsync of {@code marker} files. */
    private static void failUpdateThenRetry(String marker, int n, String message) {
        MemVfs disk = new MemVfs();
        FailingForce vfs = new FailingForce(disk);
        TableSpec changed = TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S).index(GSI).build()
                .withStreamSpecification(STREAM);
        try (Database db = withUnsyncedWrite(vfs)) {
            db.createTable(plain(TABLE));
            db.table(TABLE).putItem(new PutItem(Item.builder().s("pk", "before").s("GSI1PK", "Q").build()));
            Image before = Image.of(disk);
            vfs.failNth(marker, n);
            assertThatThrownBy(() -> db.updateTable(changed)).isInstanceOf(StorageIOException.class)
                    .hasMessageContaining(message);
            assertThat(vfs.armed()).isFalse();
            assertThat(db.describeTable(TABLE).indexes()).as("indexes after the failed updateTable").isEmpty();
            Image after = Image.of(disk);
            assertThat(after.keyspaces()).as("keyspaces after the failed updateTable").isEqualTo(before.keyspaces());
            assertThat(after.checkpoints()).as("log checkpoints after the failed updateTable")
                    .isEqualTo(before.checkpoints());

            db.updateTable(changed);
            assertThat(Image.of(disk).named("index-")).hasSize(1);
            assertThat(Image.of(disk).named("stream-")).hasSize(1);
        }
        try (Database db = open(disk.crashClone())) {
            assertThat(Image.of(disk).keyspaces()).as("tokens, Other, Tickets and one GSI1").isEqualTo(4);
            db.table(TABLE).putItem(new PutItem(Item.builder().s("pk", "after").s("GSI1PK", "Q").build()));
            List<IndexChecker.Report> reports = IndexChecker.checkAll(db, TABLE, WAIT);
            assertThat(reports).singleElement().satisfies(r -> {
                assertThat(r.expected()).isEqualTo(2);
                assertThat(r.mismatches()).isZero();
            });
            assertThat(db.describeTable(TABLE).indexes()).singleElement()
                    .satisfies(i -> assertThat(i.status()).isEqualTo(IndexStatus.ACTIVE));
            try (var c = db.streamConsumer(TABLE, "app")) {
                assertThat(c.poll(10).records()).as("the write after the stream was enabled").hasSize(1);
            }
        }
    }

    @Test
    void shouldLeaveNoIndexBehindWhenForcingTheLogForANewStreamFails() {
        failUpdateThenRetry(".wal", 1, "injected failure: fsync of");
    }

    @Test
    void shouldUndoNewIndexesWhenRecordingTheStreamCheckpointFails() {
        // Manifest fsyncs: the index's keyspace, its checkpoint, the stream's checkpoint, the table's descriptor.
        failUpdateThenRetry("MANIFEST-", 3, "cannot record checkpoint stream-");
    }

    @Test
    void shouldUndoNewIndexesWhenRecordingTheTablesNewDescriptorFails() {
        // The failed edit is not installed, and the undo's edit starts a manifest without it: a power loss at any
        // point leaves the table as it was or as asked, never naming the dropped index keyspace.
        failUpdateThenRetry("MANIFEST-", 4, "cannot update keyspace");
    }
}
