package dev.lacuna.lsm;

import dev.lacuna.base.InternalKey;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.wal.WalRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The writes recovery replays from the log, gathered per partition and put into the memtables at the end, the
 * partitions in parallel. Each partition's writes are sorted and added in key order ({@link Memtable#addSorted}):
 * inserting them one by one in log order, at random places in the skip list, cost most of an open's time.
 * The memtables end as the inserts in log order would have left them.
 */
final class Replay {
    /** One write: its internal key (user key, sequence, kind) and its value. */
    private record Entry(byte[] key, byte[] value) {
    }

    private final List<List<Entry>> perTree;

    /** @param trees the number of tree ids (dropped ones included) */
    Replay(int trees) {
        perTree = new ArrayList<>(trees);
        for (int i = 0; i < trees; i++) {
            perTree.add(null);
        }
    }

    /** Adds a write to tree {@code tree}, in log order. */
    void add(int tree, byte[] userKey, long sequence, int kind, byte[] value) {
        List<Entry> entries = perTree.get(tree);
        if (entries == null) {
            entries = new ArrayList<>();
            perTree.set(tree, entries);
        }
        entries.add(new Entry(InternalKey.encode(userKey, sequence, kind), value));
    }

    /**
     * Decodes log records and gathers their writes ({@link #add}) on a thread of its own, while the caller reads the
     * log: on two cores, reading and checking the records and decoding them take about as long as each other.
     * Batches are decoded in the order given. A record that does not decode fails the next {@link #submit} or
     * {@link #finish}, before any later failure of the reading: the sequential replay would have met it first.
     */
    final class Decoder implements AutoCloseable {
        private static final List<WalRecord> END = List.of();
        private final BlockingQueue<List<WalRecord>> queue = new ArrayBlockingQueue<>(8);
        private final Thread thread;
        private volatile Throwable failure;

        /**
         * @param db      the store (its keyspace routes)
         * @param flushed per tree, the last LSN its tables hold: older writes are not replayed
         */
        Decoder(Db db, long[] flushed) {
            thread = new Thread(() -> run(db, flushed), "lacuna-replay-decoder " + db.dir);
            thread.setDaemon(true);
            thread.start();
        }

        private void run(Db db, long[] flushed) {
            try {
                while (true) {
                    List<WalRecord> batch = queue.take();
                    if (batch == END) {
                        return;
                    }
                    if (failure != null) {
                        continue; // drained: the caller is told at its next call
                    }
                    try {
                        for (WalRecord r : batch) {
                            for (WriteBatch.Op op : BatchCodec.decodeLogRecord(r.payload(), r.lsn()).ops()) {
                                if (op.kind() == WriteBatch.KIND_LOG_ONLY) {
                                    continue;
                                }
                                int t = db.treeOrNone(op.key());
                                if (t >= 0 && r.lsn() > flushed[t]) { // t < 0: its keyspace was dropped
                                    add(t, op.key(), r.lsn(), op.kind(), op.value());
                                }
                            }
                        }
                    } catch (RuntimeException | Error e) {
                        failure = e; // an Error too: the caller must not go on without these writes
                    }
                }
            } catch (InterruptedException e) {
                // closed before the end
            }
        }

        /** Hands over records read in log order, after those handed over before. */
        void submit(List<WalRecord> records) {
            failIfFailed();
            try {
                queue.put(records);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StorageIOException("interrupted while replaying the log", e);
            }
        }

        /** Waits until every record handed over is decoded; throws the first decoding failure. */
        void finish() {
            try {
                queue.put(END);
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StorageIOException("interrupted while replaying the log", e);
            }
            failIfFailed();
        }

        private void failIfFailed() {
            Throwable e = failure;
            if (e instanceof RuntimeException r) {
                throw r;
            }
            if (e instanceof Error err) {
                throw err;
            }
        }

        /** Stops the thread if {@link #finish} did not (the reading failed). */
        @Override
        public void close() {
            thread.interrupt();
        }
    }

    /**
     * Puts every write gathered into its tree's memtable, using up to as many threads as there are processors.
     *
     * @return the bytes the memtables grew by
     */
    long apply(Db db) {
        List<Integer> trees = new ArrayList<>();
        for (int t = 0; t < perTree.size(); t++) {
            if (perTree.get(t) != null) {
                trees.add(t);
            }
        }
        int threads = Math.min(trees.size(), Runtime.getRuntime().availableProcessors());
        if (threads <= 1) {
            long grown = 0;
            for (int t : trees) {
                grown += applyTo(db.trees[t].mem(), perTree.get(t));
            }
            return grown;
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread thread = new Thread(r, "lacuna-replay " + db.dir);
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<Long>> results = new ArrayList<>();
            for (int t : trees) {
                Memtable mem = db.trees[t].mem();
                List<Entry> entries = perTree.get(t);
                results.add(pool.submit(() -> applyTo(mem, entries)));
            }
            long grown = 0;
            for (Future<Long> f : results) {
                grown += f.get();
            }
            return grown;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageIOException("interrupted while replaying the log", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        } finally {
            pool.shutdownNow();
        }
    }

    /** One tree's writes into its (empty) memtable; returns the bytes it grew by. */
    private static long applyTo(Memtable mem, List<Entry> inLogOrder) {
        long before = mem.bytes();
        int n = inLogOrder.size();
        Entry[] sorted = inLogOrder.toArray(new Entry[0]);
        Arrays.sort(sorted, (a, b) -> InternalKey.compare(a.key, b.key));
        boolean sameKeyAndSequence = false;
        for (int i = 1; i < n && !sameKeyAndSequence; i++) {
            byte[] a = sorted[i - 1].key;
            byte[] b = sorted[i].key;
            sameKeyAndSequence = InternalKey.sameUserKey(a, b) && InternalKey.sequence(a) == InternalKey.sequence(b);
        }
        if (sameKeyAndSequence || !mem.isEmpty()) {
            // Not written by this engine (it logs one write per key per batch): add in log order, as ever.
            for (Entry e : inLogOrder) {
                byte[] userKey = Arrays.copyOf(e.key, e.key.length - InternalKey.TRAILER_SIZE);
                mem.add(userKey, InternalKey.sequence(e.key), InternalKey.kind(e.key), e.value);
            }
        } else {
            byte[][] keys = new byte[n][];
            byte[][] values = new byte[n][];
            for (int i = 0; i < n; i++) {
                keys[i] = sorted[i].key;
                values[i] = sorted[i].value;
            }
            mem.addSorted(keys, values, n);
        }
        return mem.bytes() - before;
    }
}
