package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.lsm.ControlledVfs;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * No request reports an outcome that rests on a {@code SYNC} write still waiting for its fsync: a retry
 * of a transaction with its client request token, a conditional write refused because of the pending
 * write, a delete that finds nothing to delete. Each would otherwise tell its caller something a power
 * loss then makes untrue. Each case holds the first write in its fsync, runs the second request, and
 * takes a power-loss image while the first write still waits.
 */
class NothingReportedBeforeDurableTest {
    private static final Path DIR = Path.of("/db");
    private static final Key KEY = Key.of("pk", AttributeValue.s("a"));

    @Test
    void shouldNotConfirmATokenRetryBeforeTheFirstAttemptIsDurable() throws Exception {
        List<TransactWrite> txn = List.of(new TransactWrite("Tab", new PutItem(Item.builder().s("pk", "a").build())));
        check(db -> db.transactWriteItems(txn, "token-1"), db -> db.transactWriteItems(txn, "token-1"));
    }

    @Test
    void shouldNotRefuseAConditionBecauseOfAWriteNotYetDurable() throws Exception {
        check(db -> db.putItem("Tab", new PutItem(Item.builder().s("pk", "a").build())),
                db -> db.putItem("Tab", new PutItem(Item.builder().s("pk", "a").build())
                        .condition("attribute_not_exists(pk)")));
    }

    @Test
    void shouldNotReportANoOpDeleteBeforeTheDeleteItSawIsDurable() throws Exception {
        check(db -> db.deleteItem("Tab", new DeleteItem(KEY)), db -> db.deleteItem("Tab", new DeleteItem(KEY)),
                true);
    }

    private static void check(Consumer<Database> first, Consumer<Database> second) throws Exception {
        check(first, second, false);
    }

    /**
     * Runs {@code first} with its fsync held, then {@code second}; {@code second} must not have returned (or
     * thrown) while {@code first} is not durable. With {@code existing}, the item is there (durably) before.
     */
    private static void check(Consumer<Database> first, Consumer<Database> second, boolean existing)
            throws Exception {
        MemVfs mem = new MemVfs();
        ControlledVfs vfs = new ControlledVfs(mem, ".wal");
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            db.createTable(TableSpec.builder("Tab").partitionKey("pk", AttributeValue.Type.S).build());
            if (existing) {
                db.putItem("Tab", new PutItem(Item.builder().s("pk", "a").build()));
            }
            vfs.hold();
            CompletableFuture<Void> one = CompletableFuture.runAsync(() -> first.accept(db));
            vfs.awaitHeld();
            Thread[] runner = new Thread[1];
            CompletableFuture<Void> two = CompletableFuture.runAsync(() -> {
                runner[0] = Thread.currentThread();
                second.accept(db);
            });
            awaitBlockedOrDone(two, runner);
            boolean reported = two.isDone();
            MemVfs crashed = mem.crashClone();

            vfs.release();
            one.get(30, TimeUnit.SECONDS);
            try {
                two.get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(ConditionalCheckFailedException.class); // now it is true
            }
            try (Database recovered = Database.open(DIR, DatabaseOptions.builder().vfs(crashed).build())) {
                boolean firstSurvived = existing != recovered.table("Tab").getItem(KEY).isPresent();
                assertThat(firstSurvived).as("the first write was lost by the power loss").isFalse();
            }
            assertThat(reported).as("the second request reported before the write it rests on was durable")
                    .isFalse();
        }
    }

    /** Spins (no sleeping) until the second request waits in the store or has finished. */
    private static void awaitBlockedOrDone(CompletableFuture<Void> two, Thread[] runner) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!two.isDone()) {
            Thread t = runner[0];
            if (t != null && (t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING)) {
                return;
            }
            assertThat(System.nanoTime()).as("the second request neither finished nor waited").isLessThan(deadline);
            Thread.onSpinWait();
        }
        try {
            two.join();
        } catch (CompletionException ignored) {
            // it reported a failure: as much an outcome as a success
        }
    }
}
