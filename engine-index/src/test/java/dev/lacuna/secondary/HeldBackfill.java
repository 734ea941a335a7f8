package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A file system on which a global index's backfill, once a condition of the test's holds ({@link #parkWhen}), parks
 * in its next read of a block of the table and stays there until {@link #open()}: a test can so stop a backfill part way and
 * know that it has not ended, whatever the scheduler does. A backfill checked to be {@code CREATING} and then left to
 * run may end before the test's next step (a close, a crash image), which then is not the one the test names.
 *
 * <p>The condition is asked on the updater's thread, in each of its reads of a block until it holds; it may read
 * the database ({@code describeTable}: the backfill's progress), which takes no lock the backfill holds. The store must
 * read the table's blocks from its files for this: open it with no block cache ({@code blockCacheBytes(0)}), or the
 * backfill's second pass (the one that writes entries and counts progress) finds every block in the cache its first
 * pass (the count) filled, and makes no read to park in. Only reads of data blocks made inside
 * {@code GlobalIndexUpdater.backfill} on an index's updater thread are held; everything else goes to the file system
 * it wraps.
 */
final class HeldBackfill extends ForwardingVfs {
    private static final String UPDATER_THREAD = "lacuna-index-";
    /**
     * What reads data blocks ({@code dataBlock}); named, as its package is not exported to this module. Reads of a
     * table being opened (its footer, index and filter) are not held: the store opens a table under a lock of its
     * table cache, and writers' reads of that table (an update reads the item first) would wait for the parked
     * backfill, and the test for them.
     */
    private static final String DATA_BLOCK_READER = "dev.lacuna.sstable.SstableReader";

    private final CountDownLatch parked = new CountDownLatch(1);
    private final CountDownLatch open = new CountDownLatch(1);
    private volatile BooleanSupplier when = () -> false;

    HeldBackfill(Vfs inner) {
        super(inner);
    }

    /** Parks the backfill in the first of its reads of a block of the table made once {@code condition} holds. */
    void parkWhen(BooleanSupplier condition) {
        when = condition;
    }

    /** Waits until the backfill is parked; fails if it is not within {@code timeout} (it ended first, say). */
    void awaitParked(Duration timeout) throws InterruptedException {
        assertThat(parked.await(timeout.toNanos(), TimeUnit.NANOSECONDS))
                .as("the backfill parked in a read of the table within %s", timeout).isTrue();
    }

    /** Lets the parked backfill, and every later read, go on. */
    void open() {
        open.countDown();
    }

    @Override
    protected VfsFile wrap(VfsFile f) {
        return new ForwardingVfs.File(f) {
            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                if (open.getCount() > 0 && Thread.currentThread().getName().startsWith(UPDATER_THREAD) && inBackfill()
                        && when.getAsBoolean()) {
                    parked.countDown();
                    try {
                        open.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted while held", e);
                    }
                }
                return super.read(dst, position);
            }
        };
    }

    /** Whether this read is one of a data block, made by a backfill's scan of the table. */
    private static boolean inBackfill() {
        return inFrame(DATA_BLOCK_READER, "dataBlock") && inFrame(GlobalIndexUpdater.class.getName(), "backfill");
    }

    private static boolean inFrame(String cls, String method) {
        return StackWalker.getInstance().walk(frames -> frames.anyMatch(
                f -> f.getClassName().equals(cls) && f.getMethodName().equals(method)));
    }
}
