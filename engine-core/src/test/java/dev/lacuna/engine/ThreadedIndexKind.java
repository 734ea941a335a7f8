package dev.lacuna.engine;

import dev.lacuna.IndexSpec;
import dev.lacuna.IndexStatus;
import dev.lacuna.Item;
import dev.lacuna.index.BackfillProgress;
import dev.lacuna.index.IndexContext;
import dev.lacuna.index.IndexEntry;
import dev.lacuna.index.IndexKind;
import dev.lacuna.index.IndexMaintainer;
import dev.lacuna.kv.KvSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * A global index kind for the item engine's tests (engine-core has none of its own): each maintainer runs a thread
 * from its start until its close, as the real updater does, and keeps no entries. Every maintainer opened is listed,
 * so that a test can check each was closed; {@link #failOpenOf} and {@link #failCloseOf} make the open or the close
 * of the index of that name throw an Error.
 */
final class ThreadedIndexKind implements IndexKind {
    final List<Maintainer> opened = new CopyOnWriteArrayList<>();
    volatile String failOpenOf;
    volatile String failCloseOf;
    /** Run on a maintainer's thread (with the index's name) once its close told it to stop. */
    volatile java.util.function.Consumer<String> onStop = name -> { };

    @Override
    public IndexSpec.Kind kind() {
        return IndexSpec.Kind.GLOBAL;
    }

    @Override
    public IndexMaintainer open(IndexContext context) {
        String name = context.index().name();
        if (name.equals(failOpenOf)) {
            throw new AssertionError("injected: opening index " + name);
        }
        Maintainer m = new Maintainer(name, context);
        opened.add(m);
        return m;
    }

    /** Maintainers opened and not closed. */
    List<String> unclosed() {
        return opened.stream().filter(m -> !m.closed).map(m -> m.name).toList();
    }

    final class Maintainer implements IndexMaintainer {
        final String name;
        private final IndexContext context;
        private final CountDownLatch stop = new CountDownLatch(1);
        private volatile Thread thread;
        volatile boolean closed;

        Maintainer(String name, IndexContext context) {
            this.name = name;
            this.context = context;
        }

        @Override
        public boolean synchronous() {
            return false;
        }

        @Override
        public List<IndexEntry> entries(Item item) {
            return List.of();
        }

        @Override
        public void start(KvSnapshot backfillFrom) {
            if (backfillFrom != null) {
                backfillFrom.close();
            }
            Thread t = context.newThread(() -> { // as the real updater's: counted as the database's
                try {
                    stop.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                onStop.accept(name);
            }, "threaded-index-" + name);
            thread = t;
            t.start();
        }

        /** Whether its thread still runs. */
        boolean running() {
            Thread t = thread;
            return t != null && t.isAlive();
        }

        @Override
        public long appliedLsn() {
            return 0;
        }

        @Override
        public boolean awaitApplied(long lsn, Duration timeout) {
            return true;
        }

        @Override
        public IndexStatus status() {
            return IndexStatus.ACTIVE;
        }

        @Override
        public BackfillProgress backfillProgress() {
            return BackfillProgress.NONE;
        }

        @Override
        public void close() {
            stop.countDown();
            Thread t = thread;
            if (t != null) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            closed = true;
            if (name.equals(failCloseOf)) {
                throw new AssertionError("injected: closing index " + name);
            }
        }
    }
}
