package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.FaultyVfs.Op;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The grouped log write ({@link Wal#reserve}, {@link Wal#write(ReservedRecord)}): records reserved while a write is
 * in flight are written together by one writer, in LSN order; if that write fails in any way (an error, a write
 * that lands in part, an interrupt, an Error, a roll's write), every writer of the group and every writer that
 * reserved after it is told so, none is told success, and neither the running log, its readers nor a reopen ever
 * holds one of their records; the LSNs are handed out again, so the log has no hole. The groups are made
 * deterministic: several records are reserved before the first is written, or a writer's write is held in the file
 * system while others reserve behind it.
 */
// A writer left waiting for good fails the test rather than hanging the build.
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class WalGroupWriteTest {
    private static final Path DIR = Path.of("/db/wal");
    /** The whole segment preallocated when it is made: a record's write is then the only write it causes. */
    private static final WalOptions OPTIONS = WalOptions.defaults().withBlockSize(128).withSegmentSize(4096)
            .withPreallocate(4096);

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void tearDown() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void shouldWriteTheRecordsReservedMeanwhileInOneWriteInLsnOrder() {
        MemVfs disk = new MemVfs();
        FaultyVfs faulty = new FaultyVfs(disk);
        byte[][] p = payloads(3);
        try (Wal wal = Wal.open(faulty, DIR, OPTIONS)) {
            ReservedRecord a = wal.reserve(p[0], 0, p[0].length, Durability.NONE);
            ReservedRecord b = wal.reserve(p[1], 0, p[1].length, Durability.NONE);
            ReservedRecord c = wal.reserve(p[2], 0, p[2].length, Durability.NONE);
            assertThat(WalTest.readAll(wal, 1)).as("nothing is visible before it is written").isEmpty();
            long writes = faulty.count(Op.WRITE);
            wal.write(a);
            assertThat(faulty.count(Op.WRITE)).as("one write for the group").isEqualTo(writes + 1);
            wal.write(c);
            wal.write(b);
            assertThat(faulty.count(Op.WRITE)).isEqualTo(writes + 1);
            assertThat(List.of(a.lsn(), b.lsn(), c.lsn())).containsExactly(1L, 2L, 3L);
            assertThat(WalTest.readAll(wal, 1)).extracting(WalRecord::payload).containsExactly(p[0], p[1], p[2]);
        }
        assertReopensWith(disk, p[0], p[1], p[2]);
    }

    /** A group whose write fails: each of its writers gets an exception, and only acknowledged records remain. */
    @Test
    void shouldFailEveryWriterOfAFailedGroupAndKeepOnlyTheAcknowledgedRecords() {
        MemVfs disk = new MemVfs();
        FaultyVfs faulty = new FaultyVfs(disk);
        byte[][] p = payloads(5);
        try (Wal wal = Wal.open(faulty, DIR, OPTIONS)) {
            assertThat(wal.append(p[0], Durability.NONE)).isEqualTo(1);
            ReservedRecord a = wal.reserve(p[1], 0, p[1].length, Durability.NONE);
            ReservedRecord b = wal.reserve(p[2], 0, p[2].length, Durability.NONE);
            ReservedRecord c = wal.reserve(p[3], 0, p[3].length, Durability.NONE);
            faulty.failNth(Op.WRITE, 1);
            assertThatThrownBy(() -> wal.write(a)).isInstanceOf(StorageIOException.class);
            assertThatThrownBy(() -> wal.write(b)).isInstanceOf(StorageIOException.class);
            assertThatThrownBy(() -> wal.write(c)).isInstanceOf(StorageIOException.class);
            assertThat(wal.lastLsn()).as("the group's LSNs are handed out again").isEqualTo(1);
            assertThat(WalTest.readAll(wal, 1)).extracting(WalRecord::payload).containsExactly(p[0]);
            assertThat(wal.append(p[4], Durability.SYNC)).as("no hole after the failed group").isEqualTo(2);
        }
        assertReopensWith(disk, p[0], p[4]);
    }

    /**
     * A group's write lands in part (the first half of its bytes, a whole record among them) and fails. Its writers
     * are told so; the log is closed without a repair and reopened from what is in the file: the record that landed
     * whole must not come back, so the write's leftovers are cut before the writers are told.
     */
    @Test
    void shouldCutWhatAPartialGroupWriteLeftBeforeItsWritersAreTold() {
        MemVfs disk = new MemVfs();
        FaultyVfs faulty = new FaultyVfs(disk);
        byte[][] p = payloads(4);
        Wal wal = Wal.open(faulty, DIR, OPTIONS);
        try {
            wal.append(p[0], Durability.SYNC);
            ReservedRecord a = wal.reserve(p[1], 0, p[1].length, Durability.NONE);
            ReservedRecord b = wal.reserve(p[2], 0, p[2].length, Durability.NONE);
            ReservedRecord c = wal.reserve(p[3], 0, p[3].length, Durability.NONE);
            faulty.failOperation(1, FaultyVfs.Fault.TORN_WRITE);
            assertThatThrownBy(() -> wal.write(a)).isInstanceOf(StorageIOException.class);
            assertThatThrownBy(() -> wal.write(b)).isInstanceOf(StorageIOException.class);
            assertThatThrownBy(() -> wal.write(c)).isInstanceOf(StorageIOException.class);
            assertThat(faulty.injectedCount()).isEqualTo(1);
        } finally {
            faulty.heal();
            wal.close(); // a failed log closes without sealing: the file stays as the failure and its cut left it
        }
        assertReopensWith(disk, p[0]);
    }

    /** A leader interrupted in its write (a file system that, unlike NioVfs, gives up): its group fails whole. */
    @Test
    void shouldFailTheGroupOfALeaderInterruptedInItsWrite() throws Exception {
        MemVfs disk = new MemVfs();
        Hook hook = new Hook(disk);
        byte[][] p = payloads(4);
        try (Wal wal = Wal.open(hook, DIR, OPTIONS)) {
            wal.append(p[0], Durability.NONE);
            CountDownLatch inWrite = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            hook.arm(() -> {
                inWrite.countDown();
                awaitQuietly(release);
                Thread.currentThread().interrupt();
                throw new ClosedByInterruptException();
            });
            AtomicReference<Boolean> leaderFlag = new AtomicReference<>();
            Future<?> leader = threads.submit(() -> {
                try {
                    ReservedRecord a = wal.reserve(p[1], 0, p[1].length, Durability.NONE);
                    wal.write(a);
                } finally {
                    leaderFlag.set(Thread.interrupted());
                }
                return null;
            });
            inWrite.await();
            // A follower reserves behind the write in flight and waits for it; it is interrupted while it waits.
            Thread[] followerThread = new Thread[1];
            Future<?> follower = threads.submit(() -> {
                followerThread[0] = Thread.currentThread();
                ReservedRecord b = wal.reserve(p[2], 0, p[2].length, Durability.NONE);
                try {
                    wal.write(b);
                } finally {
                    assertThat(Thread.interrupted()).as("the follower's interrupt flag is kept").isTrue();
                }
                return null;
            });
            awaitWaitingForTheGroup(follower, () -> followerThread[0]);
            followerThread[0].interrupt();
            assertThat(follower.isDone()).as("an interrupt does not end a follower's wait").isFalse();
            release.countDown();
            assertFailsWith(leader, StorageIOException.class);
            assertThat(leaderFlag.get()).as("the leader's interrupt flag is kept").isTrue();
            assertFailsWith(follower, StorageIOException.class);
            assertThat(WalTest.readAll(wal, 1)).extracting(WalRecord::payload).containsExactly(p[0]);
            assertThat(wal.append(p[3], Durability.NONE)).isEqualTo(2);
        }
        assertReopensWith(disk, p[0], p[3]);
    }

    /** A follower interrupted while it waits for a write that then succeeds: its write succeeds. */
    @Test
    void shouldNotFailAFollowerInterruptedWhileItsGroupIsWritten() throws Exception {
        MemVfs disk = new MemVfs();
        Hook hook = new Hook(disk);
        byte[][] p = payloads(2);
        try (Wal wal = Wal.open(hook, DIR, OPTIONS)) {
            CountDownLatch inWrite = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            hook.arm(() -> {
                inWrite.countDown();
                awaitQuietly(release);
            });
            Future<Long> leader = threads.submit(() -> wal.append(p[0], Durability.NONE));
            inWrite.await();
            Thread[] followerThread = new Thread[1];
            Future<Boolean> follower = threads.submit(() -> {
                followerThread[0] = Thread.currentThread();
                wal.append(p[1], Durability.NONE);
                return Thread.interrupted();
            });
            awaitWaitingForTheGroup(follower, () -> followerThread[0]);
            followerThread[0].interrupt();
            release.countDown();
            assertThat(leader.get(30, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(follower.get(30, TimeUnit.SECONDS)).as("interrupt flag kept").isTrue();
        }
        assertReopensWith(disk, p[0], p[1]);
    }

    /** An Error thrown by the group's write: the leader gets it, its followers an exception, nothing is kept. */
    @Test
    void shouldFailTheWholeGroupOnAnErrorInItsWrite() {
        MemVfs disk = new MemVfs();
        Hook hook = new Hook(disk);
        byte[][] p = payloads(4);
        try (Wal wal = Wal.open(hook, DIR, OPTIONS)) {
            wal.append(p[0], Durability.NONE);
            ReservedRecord a = wal.reserve(p[1], 0, p[1].length, Durability.NONE);
            ReservedRecord b = wal.reserve(p[2], 0, p[2].length, Durability.NONE);
            hook.arm(() -> {
                throw new InjectedError();
            });
            assertThatThrownBy(() -> wal.write(a)).isInstanceOf(InjectedError.class);
            assertThatThrownBy(() -> wal.write(b)).isInstanceOf(StorageIOException.class)
                    .hasCauseInstanceOf(InjectedError.class);
            assertThat(WalTest.readAll(wal, 1)).extracting(WalRecord::payload).containsExactly(p[0]);
            assertThat(wal.append(p[3], Durability.SYNC)).isEqualTo(2);
        }
        assertReopensWith(disk, p[0], p[3]);
    }

    /** A segment roll writes the records reserved before it, in the segment they were framed for. */
    @Test
    void shouldWriteTheReservedRecordsBeforeARoll() {
        MemVfs disk = new MemVfs();
        byte[][] p = payloads(2);
        byte[] big = WalTest.payload(99, 3700);
        try (Wal wal = Wal.open(disk, DIR, OPTIONS)) {
            ReservedRecord a = wal.reserve(p[0], 0, p[0].length, Durability.NONE);
            ReservedRecord b = wal.reserve(p[1], 0, p[1].length, Durability.NONE);
            ReservedRecord c = wal.reserve(big, 0, big.length, Durability.NONE); // does not fit: rolls
            assertThat(wal.segmentCount()).isEqualTo(2);
            wal.write(c);
            wal.write(a);
            wal.write(b);
        }
        assertReopensWith(disk, p[0], p[1], big);
    }

    /** The roll's write of the records reserved before it fails: those and the record that rolled all fail. */
    @Test
    void shouldFailTheReservedRecordsAndTheRollerWhenARollsWriteFails() {
        MemVfs disk = new MemVfs();
        FaultyVfs faulty = new FaultyVfs(disk);
        byte[][] p = payloads(4);
        byte[] big = WalTest.payload(99, 3700);
        try (Wal wal = Wal.open(faulty, DIR, OPTIONS)) {
            wal.append(p[0], Durability.NONE);
            ReservedRecord a = wal.reserve(p[1], 0, p[1].length, Durability.NONE);
            ReservedRecord b = wal.reserve(p[2], 0, p[2].length, Durability.NONE);
            faulty.failOperation(1, FaultyVfs.Fault.TORN_WRITE);
            assertThatThrownBy(() -> wal.reserve(big, 0, big.length, Durability.NONE))
                    .isInstanceOf(StorageIOException.class);
            assertThatThrownBy(() -> wal.write(a)).isInstanceOf(StorageIOException.class);
            assertThatThrownBy(() -> wal.write(b)).isInstanceOf(StorageIOException.class);
            assertThat(wal.append(p[3], Durability.SYNC)).isEqualTo(2);
        }
        assertReopensWith(disk, p[0], p[3]);
    }

    /** Close with records reserved and not written: it writes them (and seals them), and their writers learn it. */
    @Test
    void shouldWriteTheReservedRecordsOnClose() {
        MemVfs disk = new MemVfs();
        byte[][] p = payloads(2);
        Wal wal = Wal.open(disk, DIR, OPTIONS);
        ReservedRecord a = wal.reserve(p[0], 0, p[0].length, Durability.NONE);
        ReservedRecord b = wal.reserve(p[1], 0, p[1].length, Durability.NONE);
        wal.close();
        wal.write(b);
        wal.write(a);
        assertReopensWith(disk, p[0], p[1]);
    }

    /** Close while a group's write is in flight: it waits for it, and no writer is left waiting. */
    @Test
    void shouldCloseWhileAGroupIsWritten() throws Exception {
        MemVfs disk = new MemVfs();
        Hook hook = new Hook(disk);
        byte[][] p = payloads(2);
        Wal wal = Wal.open(hook, DIR, OPTIONS);
        CountDownLatch inWrite = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        hook.arm(() -> {
            inWrite.countDown();
            awaitQuietly(release);
        });
        Future<Long> leader = threads.submit(() -> wal.append(p[0], Durability.NONE));
        inWrite.await();
        ReservedRecord b = wal.reserve(p[1], 0, p[1].length, Durability.NONE);
        Future<?> closer = threads.submit(wal::close);
        release.countDown();
        closer.get(30, TimeUnit.SECONDS);
        assertThat(leader.get(30, TimeUnit.SECONDS)).isEqualTo(1);
        wal.write(b); // written by the close
        assertReopensWith(disk, p[0], p[1]);
    }

    static void assertReopensWith(MemVfs disk, byte[]... payloads) {
        try (Wal wal = Wal.open(disk, DIR, OPTIONS)) {
            List<WalRecord> records = WalTest.readAll(wal, 1);
            assertThat(records).extracting(WalRecord::payload).containsExactly(payloads);
            for (int i = 0; i < records.size(); i++) {
                assertThat(records.get(i).lsn()).isEqualTo(i + 1);
            }
        }
    }

    static byte[][] payloads(int n) {
        byte[][] p = new byte[n][];
        for (int i = 0; i < n; i++) {
            p[i] = WalTest.payload(i, 200);
        }
        return p;
    }

    private static void assertFailsWith(Future<?> f, Class<? extends Throwable> type) throws Exception {
        try {
            f.get(30, TimeUnit.SECONDS);
            throw new AssertionError("expected " + type.getSimpleName() + ", the write succeeded");
        } catch (java.util.concurrent.ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(type);
        }
    }

    /** Waits until the thread is parked in the group's wait (no sleep: it is polled until it shows there). */
    static void awaitWaitingForTheGroup(Future<?> f, java.util.function.Supplier<Thread> thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Thread t = thread.get();
            if (t != null && t.getState() == Thread.State.WAITING && Arrays.stream(t.getStackTrace())
                    .anyMatch(e -> e.getClassName().endsWith("WriteGroup") && e.getMethodName().equals("awaitEnd"))) {
                return;
            }
            assertThat(f.isDone()).as("the follower ended before it waited for the group").isFalse();
            assertThat(System.nanoTime()).as("the follower waits for the group").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    static void awaitQuietly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class InjectedError extends Error {
        private static final long serialVersionUID = 1L;

        InjectedError() {
            super("injected error in a log write");
        }
    }

    /** Runs an armed action once, in the next write of records (not a header, not a zero fill) to a log segment. */
    static final class Hook extends ForwardingVfs {
        private final AtomicReference<Action> armed = new AtomicReference<>();

        Hook(Vfs inner) {
            super(inner);
        }

        void arm(Action action) {
            armed.set(action);
        }

        interface Action {
            void run() throws IOException;
        }

        @Override
        protected VfsFile wrap(VfsFile f) {
            return new ForwardingVfs.File(f) {
                @Override
                public void write(ByteBuffer src, long position) throws IOException {
                    if (f.name().endsWith(".wal") && position > 0 && !zeros(src)) {
                        Action action = armed.getAndSet(null);
                        if (action != null) {
                            action.run();
                        }
                    }
                    super.write(src, position);
                }
            };
        }

        private static boolean zeros(ByteBuffer src) {
            for (int i = src.position(); i < src.limit(); i++) {
                if (src.get(i) != 0) {
                    return false;
                }
            }
            return true;
        }
    }
}
