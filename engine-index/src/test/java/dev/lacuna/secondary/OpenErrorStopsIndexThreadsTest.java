package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.IndexStatus;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Query;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * An open that fails after the catalog has started an index's updater (here: rebuilding another table's index whose
 * build a crash cut short fails) must stop that updater: the store is closed under it, and a thread left following
 * the log of a closed store outlives the failed open.
 */
class OpenErrorStopsIndexThreadsTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String FIRST = "OpenErrFirst";
    private static final String SECOND = "OpenErrSecond";

    /** Throws an AssertionError from writes made while the catalog restarts an index build, while armed. */
    private static final class FaultyVfs extends ForwardingVfs {
        volatile boolean armed = true;
        /** The first table's updaters running when the fault was thrown. */
        volatile List<Thread> running = List.of();

        FaultyVfs(Vfs inner) {
            super(inner);
        }

        private void check() {
            if (armed && StackWalker.getInstance().walk(s -> s.anyMatch(f -> f.getMethodName().equals("restartBackfills")))) {
                running = updatersOf(FIRST);
                throw new AssertionError("injected while restarting a backfill");
            }
        }

        @Override
        protected VfsFile wrap(VfsFile f) {
            return new ForwardingVfs.File(f) {
                @Override
                public long append(ByteBuffer src) throws IOException {
                    check();
                    return super.append(src);
                }

                @Override
                public void write(ByteBuffer src, long position) throws IOException {
                    check();
                    super.write(src, position);
                }
            };
        }
    }

    private static TableSpec second(boolean withIndex) {
        TableSpec.Builder b = TableSpec.builder(SECOND).partitionKey("pk", AttributeValue.Type.S);
        if (withIndex) {
            b.index(IndexSpec.global("BySecond", KeyAttribute.s("g"), null));
        }
        return b.build();
    }

    private static List<Thread> updatersOf(String table) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("lacuna-index-" + table + "-")).toList();
    }

    /** A store whose first table's index is active and whose second table's index build a crash cut short. */
    private static MemVfs crashedWithABuildCutShort() throws Exception {
        MemVfs mem = new MemVfs();
        HeldIndexReads held = new HeldIndexReads(mem);
        MemVfs crashed;
        try (Database db = Database.open(IndexEquivalenceTest.DIR, DatabaseOptions.builder().vfs(held).build())) {
            db.createTable(TableSpec.builder(FIRST).partitionKey("pk", AttributeValue.Type.S)
                    .index(IndexSpec.global("ByFirst", KeyAttribute.s("g"), null)).build());
            db.table(FIRST).putItem(Item.builder().s("pk", "a").s("g", "G").build());
            db.createTable(second(false));
            for (int i = 0; i < 20; i++) {
                db.table(SECOND).putItem(Item.builder().s("pk", "p" + i).s("g", "G").build());
            }
            db.flush(); // the build reads the items from a file, where it can be held
            held.hold();
            try {
                db.updateTable(second(true));
                assertThat(held.awaitHeld(WAIT.toNanos())).isTrue();
                crashed = mem.crashClone();
                assertThat(db.describeTable(SECOND).index("BySecond").status()).as("the build was cut short")
                        .isEqualTo(IndexStatus.CREATING);
            } finally {
                held.release();
            }
        }
        return crashed;
    }

    @Test
    void shouldStopTheUpdatersItStartedWhenTheOpenFails() throws Exception {
        MemVfs crashed = crashedWithABuildCutShort();
        FaultyVfs faulty = new FaultyVfs(crashed);
        assertThatThrownBy(() -> Database.open(IndexEquivalenceTest.DIR, DatabaseOptions.builder().vfs(faulty).build()))
                .isInstanceOf(AssertionError.class).hasMessageContaining("injected");
        assertThat(faulty.running).as("the first table's updater, started before the fault").isNotEmpty();
        for (Thread t : faulty.running) {
            t.join(WAIT.toMillis());
            assertThat(t.isAlive()).as("%s, started by the failed open", t.getName()).isFalse();
        }
        faulty.armed = false;
        try (Database db = Database.open(IndexEquivalenceTest.DIR, DatabaseOptions.builder().vfs(faulty).build())) {
            assertThat(db.query(FIRST, new Query("g = :g").index("ByFirst").value(":g", AttributeValue.s("G"))
                    .readYourWrites(WAIT)).items()).hasSize(1);
        }
    }

    /**
     * The catalog closes the updaters it started before the open throws, rather than leave them to find the store
     * closed under them: they are gone when the open throws, and none mistook the closed store for a failure of its
     * index (it logged 'FAILED and is no longer kept' at SEVERE, and asked the catalog to mark the index failed).
     */
    @Test
    void shouldCloseTheUpdatersItStartedBeforeTheOpenThrows() throws Exception {
        MemVfs crashed = crashedWithABuildCutShort();
        FaultyVfs faulty = new FaultyVfs(crashed);
        List<String> logged;
        List<String> aliveAtThrow;
        try (UpdaterLog log = new UpdaterLog()) {
            assertThatThrownBy(() -> Database.open(IndexEquivalenceTest.DIR, DatabaseOptions.builder().vfs(faulty).build()))
                    .isInstanceOf(AssertionError.class).hasMessageContaining("injected");
            aliveAtThrow = faulty.running.stream().filter(Thread::isAlive).map(Thread::getName).toList();
            for (Thread t : faulty.running) {
                t.join(WAIT.toMillis()); // whatever it does once the store is closed, it has done it
            }
            logged = log.atLeast(Level.WARNING);
        }
        assertThat(faulty.running).as("the first table's updater, started before the fault").isNotEmpty();
        assertThat(logged).as("what the updaters of the failed open logged").isEmpty();
        assertThat(aliveAtThrow).as("updaters still running when the failed open threw").isEmpty();
    }
}
