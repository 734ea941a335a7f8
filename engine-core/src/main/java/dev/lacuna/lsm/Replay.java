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
 * partitions in parallel. Each partition's writes are ordered ({@link InternalKeySort}) and its memtable built from
 * them in key order in one pass ({@link Memtable#recovered}): inserting them one by one in log order, at random places
 * in the skip list, cost most of an open's time. The memtables end as the inserts in log order would have left them.
 */
final class Replay {
    /** One tree's writes in log order: internal keys (user key, sequence, kind) and values. */
    private static final class Writes {
        byte[][] keys = new byte[64][];
        byte[][] values = new byte[64][];
        int count;

        void add(byte[] key, byte[] value) {
            if (count == keys.length) {
                keys = Arrays.copyOf(keys, count * 2);
                values = Arrays.copyOf(values, count * 2);
            }
            keys[count] = key;
            values[count] = value;
            count++;
        }
    }

    private final List<Writes> perTree;

    /** @param trees the number of tree ids (dropped ones included) */
    Replay(int trees) {
        perTree = new ArrayList<>(trees);
        for (int i = 0; i < trees; i++) {
            perTree.add(null);
        }
    }

    /** Adds a write to tree {@code tree}, in log order. */
    void add(int tree, byte[] userKey, long sequence, int kind, byte[] value) {
        Writes writes = perTree.get(tree);
        if (writes == null) {
            writes = new Writes();
            perTree.set(tree, writes);
        }
        writes.add(InternalKey.encode(userKey, sequence, kind), value);
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
                grown += applyTo(db.trees[t], perTree.get(t));
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
                Tree tree = db.trees[t];
                Writes writes = perTree.get(t);
                results.add(pool.submit(() -> applyTo(tree, writes)));
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

    /** One tree's writes into its memtable; returns the bytes it grew by. */
    private static long applyTo(Tree tree, Writes writes) {
        Memtable mem = tree.mem();
        int n = writes.count;
        InternalKeySort.Result sorted = mem.isEmpty() ? InternalKeySort.order(writes.keys, n) : null;
        if (sorted == null || sorted.keyAndSequenceTwice()) {
            // Not written by this engine (it logs one write per key per batch): add in log order, as ever.
            long before = mem.bytes();
            for (int i = 0; i < n; i++) {
                byte[] key = writes.keys[i];
                byte[] userKey = Arrays.copyOf(key, key.length - InternalKey.TRAILER_SIZE);
                mem.add(userKey, InternalKey.sequence(key), InternalKey.kind(key), writes.values[i]);
            }
            return mem.bytes() - before;
        }
        Memtable recovered = Memtable.recovered(writes.keys, writes.values, sorted.order());
        tree.installRecovered(recovered);
        return recovered.bytes();
    }
}
