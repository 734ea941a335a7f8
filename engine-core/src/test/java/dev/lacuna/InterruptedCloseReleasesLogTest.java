package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Database.close on an interrupted thread while a group commit's fsync is running: Wal.close throws
 * 'interrupted while closing the log' without closing the log, LsmStore.close takes that as the log's close
 * error, closes the rest, releases the directory's LOCK and marks the store closed. The log (its segment files
 * and wal/LOCK) stays open for good: no later close reaches it, and no later open of the directory in this
 * process succeeds. Close now waits for the fsync through the interrupt (and sets the flag again after); this
 * test closes in a thread of its own and lets the fsync end once that close waits in the log's close (or ended).
 */
class InterruptedCloseReleasesLogTest {
    private static final Path DIR = Path.of("/db");

    /** Holds the log's fsync, while armed, until released. */
    private static final class HeldForce extends ForwardingVfs {
        volatile boolean armed;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        HeldForce(Vfs inner) {
            super(inner);
        }

        @Override
        protected VfsFile wrap(VfsFile f) {
            return new ForwardingVfs.File(f) {
                @Override
                public void force() throws IOException {
                    if (armed && name().endsWith(".wal")) {
                        entered.countDown();
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

    @Test
    void shouldReopenAfterAnInterruptedCloseRacingAnFsync() throws Exception {
        HeldForce vfs = new HeldForce(new MemVfs());
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        Database db = Database.open(DIR, options);
        db.createTable(TableSpec.builder("Items").partitionKey("pk", AttributeValue.Type.S).build());
        vfs.armed = true;
        Thread writer = new Thread(() -> {
            try {
                db.table("Items").putItem(Item.builder().s("pk", "a").s("v", "1").build());
            } catch (RuntimeException e) {
                // whatever the close makes of it
            }
        });
        writer.start();
        assertThat(vfs.entered.await(60, TimeUnit.SECONDS)).as("the writer's fsync started").isTrue();
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        Thread closer = new Thread(() -> {
            Thread.currentThread().interrupt();
            try {
                db.close();
            } catch (RuntimeException e) {
                System.out.println("close threw: " + e); // before the fix: 'interrupted while closing the log'
            } finally {
                interruptedAfter.set(Thread.interrupted());
            }
        }, "closer");
        closer.start();
        // The close gives up at once (before the fix), or waits in the log's close for the fsync to end.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (closer.isAlive() && !waitsInTheLogsClose(closer) && System.nanoTime() < deadline) {
            closer.join(10);
        }
        vfs.release.countDown();
        closer.join(60_000);
        writer.join(60_000);
        assertThat(closer.isAlive()).as("the close ended once the fsync did").isFalse();
        vfs.armed = false;
        db.close(); // a second close, as a careful caller would try
        try (Database again = Database.open(DIR, options)) {
            assertThat(again.table("Items").getItem(Key.of("pk", AttributeValue.s("a")))).isPresent();
        }
        assertThat(interruptedAfter).as("the caller's interrupt flag after close").isTrue();
    }

    private static boolean waitsInTheLogsClose(Thread t) {
        if (t.getState() != Thread.State.WAITING) {
            return false;
        }
        for (StackTraceElement frame : t.getStackTrace()) {
            if (frame.getClassName().equals("dev.lacuna.wal.Wal") && frame.getMethodName().equals("close")) {
                return true;
            }
        }
        return false;
    }
}
