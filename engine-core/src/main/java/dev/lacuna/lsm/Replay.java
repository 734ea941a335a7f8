package dev.lacuna.lsm;

import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.StorageIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The writes recovery replays from the log, gathered per partition and put into the memtables at the end, the
 * partitions in parallel. Each write is placed, as it is decoded, in the memory of its partition's new memtable (a
 * node of its {@link ArenaSkipList}, not linked); each partition's nodes are then ordered ({@link InternalKeySort})
 * and linked in key order in one pass ({@link Memtable#recovered}): inserting them one by one in log order, at random
 * places in the skip list, cost most of an open's time. The memtables end as the inserts in log order would have left
 * them. A write decoded into arrays of its own, held until the end, was two objects per write that every young
 * collection during the open copied (pauses of 130–300 ms in a 128 MB replay); an arena's large chunks are not copied.
 * Each memtable is told its size as the replay goes ({@link ChunkShares}), so that it takes its memory in one
 * large chunk rather than doubling up to it.
 */
final class Replay {
    /** One tree's nodes in log order. */
    private static final class Writes {
        long[] nodes = new long[16];
        int count;

        void add(long node) {
            if (count == nodes.length) {
                nodes = Arrays.copyOf(nodes, count * 2);
            }
            nodes[count++] = node;
        }

        void addAll(Writes more) {
            if (count + more.count > nodes.length) {
                nodes = Arrays.copyOf(nodes, Math.max(nodes.length * 2, count + more.count));
            }
            System.arraycopy(more.nodes, 0, nodes, count, more.count);
            count += more.count;
        }
    }

    /** One record's operations as its payload was read, the values left where they lie; reused record to record. */
    private static final class RecordOps implements BatchCodec.OpSink {
        int count;
        int[] kinds = new int[8];
        byte[][] keys = new byte[8][];
        int[] valueAt = new int[8];
        int[] valueLength = new int[8];

        @Override
        public void op(int kind, byte[] key, byte[] payload, int at, int length) {
            if (count == kinds.length) {
                int grown = count * 2;
                kinds = Arrays.copyOf(kinds, grown);
                keys = Arrays.copyOf(keys, grown);
                valueAt = Arrays.copyOf(valueAt, grown);
                valueLength = Arrays.copyOf(valueLength, grown);
            }
            kinds[count] = kind;
            keys[count] = key;
            valueAt[count] = at;
            valueLength[count] = length;
            count++;
        }
    }

    /** Per tree id, the skip list its writes are placed in: its memtable's, once they are linked. */
    private final ArenaSkipList[] lists;
    private final List<Writes> perTree;

    /** Each rebuilt memtable's size, told to its list as the replay goes. */
    private final ChunkShares shares;

    /** @param trees the number of tree ids (dropped ones included) */
    Replay(int trees) {
        shares = new ChunkShares(trees);
        perTree = new ArrayList<>(trees);
        lists = new ArenaSkipList[trees];
        for (int i = 0; i < trees; i++) {
            perTree.add(null);
            lists[i] = new ArenaSkipList(); // no memory until a write is placed in it
        }
    }

    /** The log's word, before its first record handed over: the bytes from it to the log's end. */
    void logBytes(long bytes) {
        shares.logBytes(bytes);
    }

    /**
     * Decodes log records and gathers their writes on threads of their own (as many as there are processors), while
     * the log's recovery reads and checks them (Recovery): decoding took about three times as long as reading and
     * checking the records, so one decoding thread left the open waiting on it. Each batch handed over is decoded
     * on its own into per-tree writes; the results are taken back in the order the batches were handed over, so
     * each tree's writes stay in log order. The first record, in log order, that does not decode fails the next
     * {@link #submit} or {@link #finish} once every batch before its own has been taken back, and every call after.
     * Not thread-safe: the thread recovering the log calls it.
     */
    final class Decoder implements AutoCloseable {
        private final Db db;
        private final long[] flushed;
        private final ExecutorService pool;
        /**
         * Batches being decoded, in the order handed over; at most {@link #maxInFlight}, which bounds memory: with
         * the one being filled and those kept to fill again, a replay holds at most {@code maxInFlight + 1} batches,
         * each of at most {@link ReplayBatch#KEPT_BYTES} unless it holds a record larger than {@link
         * ReplayBatch#BYTES} (4.7 MB with two processors, 67.6 MB with 32; 64 KB each for records of a few hundred
         * bytes).
         */
        private final ArrayDeque<Decoding> inFlight = new ArrayDeque<>();
        private final int maxInFlight;
        /** Batches decoded and taken back, to be filled again ({@link #emptyBatch}). */
        private final ArrayDeque<ReplayBatch> free = new ArrayDeque<>();
        /**
         * Per-tree node lists a batch's decoding filled and {@link #takeBack} emptied, for the next batch's: new lists
         * for each batch, grown as they filled, were a tenth of what an open allocated.
         */
        private final ArrayDeque<Writes[]> freeLists = new ArrayDeque<>();
        /** The first failure met, thrown again by every later call (the caller tells it apart by identity). */
        private RuntimeException failure;
        private Error error;

        /**
         * @param db      the store (its keyspace routes)
         * @param flushed per tree, the last LSN its tables hold: older writes are not replayed
         */
        Decoder(Db db, long[] flushed) {
            this.db = db;
            this.flushed = flushed;
            int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
            maxInFlight = 4 * threads;
            pool = Executors.newFixedThreadPool(threads, r -> {
                Thread thread = new Thread(r, "lacuna-replay-decoder " + db.dir);
                thread.setDaemon(true);
                return thread;
            });
        }

        /** A batch handed over, and its decoding's outcome. */
        private record Decoding(ReplayBatch batch, Future<Writes[]> result) {
        }

        /**
         * Places one batch's writes; returns their nodes, per tree, in log order, in {@code byTree} (emptied: lists a
         * batch taken back left, or none).
         */
        private Writes[] decode(ReplayBatch batch, Writes[] byTree) {
            RecordOps ops = new RecordOps();
            long[] placed = new long[perTree.size()]; // per tree, the nodes' bytes placed since the last telling
            long decoded = 0;
            int records = 0;
            for (int r = 0; r < batch.count(); r++) {
                if (records == ChunkShares.EVERY) {
                    shares.tell(placed, decoded, records, lists);
                    decoded = 0;
                    records = 0;
                }
                records++;
                decoded += ChunkShares.framed(batch.length(r));
                place(batch, r, ops, byTree, placed);
            }
            shares.tell(placed, decoded, records, lists);
            return byTree;
        }

        /**
         * Places the writes of the batch's record {@code r}. A method per record: {@link #decode} is called once per
         * batch, and a loop doing this in its own body ran interpreted through most of a small log's first open.
         */
        private void place(ReplayBatch batch, int r, RecordOps ops, Writes[] byTree, long[] placed) {
            long lsn = batch.lsn(r);
            byte[] payloads = batch.bytes();
            // The whole record is checked before any of its keys is routed (a user's router may refuse a key
            // of a damaged record): its damage is what the open reports, as when the record was decoded whole.
            ops.count = 0;
            BatchCodec.decodeLogRecord(payloads, batch.from(r), batch.length(r), lsn, ops);
            for (int i = 0; i < ops.count; i++) {
                int kind = ops.kinds[i];
                if (kind == WriteBatch.KIND_LOG_ONLY) {
                    continue;
                }
                byte[] key = ops.keys[i];
                int t = db.treeOrNone(key);
                if (t >= 0 && lsn > flushed[t]) { // t < 0: its keyspace was dropped
                    if (byTree[t] == null) {
                        byTree[t] = new Writes();
                    }
                    // The value goes from the payload into the arena with no array of its own between: such
                    // arrays were a quarter of what an open allocated.
                    byTree[t].add(lists[t].place(key, lsn << 8 | kind, payloads, ops.valueAt[i],
                            ops.valueLength[i]));
                    placed[t] += ArenaSkipList.typicalNodeBytes(key.length + 8, ops.valueLength[i]);
                }
            }
        }

        /**
         * Hands over a batch of records read in log order, after those handed over before. The batch is the decoder's
         * until it gives it out again ({@link #emptyBatch}).
         */
        void submit(ReplayBatch batch) {
            failIfFailed();
            while (inFlight.size() >= maxInFlight) {
                takeBack();
            }
            Writes[] byTree = freeLists.isEmpty() ? new Writes[perTree.size()] : freeLists.poll();
            inFlight.add(new Decoding(batch, pool.submit(() -> decode(batch, byTree))));
        }

        /** A batch to fill: one whose decoding was taken back, or a new one. */
        ReplayBatch emptyBatch() {
            ReplayBatch batch = free.poll();
            return batch != null ? batch : new ReplayBatch();
        }

        /** Waits until every record handed over is decoded and gathered; throws the first decoding failure. */
        void finish() {
            failIfFailed();
            while (!inFlight.isEmpty()) {
                takeBack();
            }
        }

        /** Gathers the oldest batch's writes into the trees' (an Error too: the open must not go on without them). */
        private void takeBack() {
            Writes[] byTree;
            Decoding oldest = inFlight.poll();
            try {
                byTree = oldest.result().get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = new StorageIOException("interrupted while replaying the log", e);
                throw failure;
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof Error err) {
                    error = err;
                } else {
                    failure = cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
                }
                failIfFailed();
                return;
            }
            // Its task is done (get() returned: what it read of the batch happened before), and nothing it placed
            // points into the batch: the arena holds the values, the keys are arrays of their own.
            if (oldest.batch().clear()) {
                free.add(oldest.batch());
            }
            for (int t = 0; t < byTree.length; t++) {
                if (byTree[t] != null) {
                    Writes writes = perTree.get(t);
                    if (writes == null) {
                        perTree.set(t, byTree[t]);
                        byTree[t] = null; // the tree's now
                    } else {
                        writes.addAll(byTree[t]);
                        byTree[t].count = 0;
                    }
                }
            }
            freeLists.add(byTree);
        }

        private void failIfFailed() {
            if (failure != null) {
                throw failure;
            }
            if (error != null) {
                throw error;
            }
        }

        /** Stops the threads (at the end, or when the reading failed). */
        @Override
        public void close() {
            pool.shutdownNow();
        }
    }

    /**
     * Starts building each tree's memtable from the writes gathered, its nodes sorted and linked, on up to as many
     * threads as there are processors; {@link Build#install} puts them in the trees. Started once every record is
     * decoded, while the log's open and the store's go on (the log's repair and new segment, the new manifest): at
     * 8 MB those took 5–20 ms of an open that waited for them before it sorted.
     *
     * @param dir the store's directory (names the threads)
     */
    Build build(java.nio.file.Path dir) {
        List<Integer> trees = new ArrayList<>();
        for (int t = 0; t < perTree.size(); t++) {
            if (perTree.get(t) != null) {
                trees.add(t);
            }
        }
        int threads = Math.min(trees.size(), Runtime.getRuntime().availableProcessors());
        if (threads <= 1) {
            return new Build(trees, null, null); // built by install, on its caller's thread
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread thread = new Thread(r, "lacuna-replay " + dir);
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<Memtable>> results = new ArrayList<>();
            for (int t : trees) {
                ArenaSkipList list = lists[t];
                Writes writes = perTree.get(t);
                results.add(pool.submit(() -> built(list, writes)));
            }
            return new Build(trees, pool, results);
        } catch (RuntimeException | Error e) {
            pool.shutdownNow();
            throw e;
        }
    }

    /**
     * The memtables being built ({@link #build}). {@link #install} puts them in their trees; {@link #close} stops
     * the threads of one not installed (an open failing meanwhile): they touch nothing but the replay's own memory.
     */
    final class Build implements AutoCloseable {
        private final List<Integer> trees;
        /** Null: built by {@link #install} on its caller's thread. */
        private final ExecutorService pool;
        private final List<Future<Memtable>> results;

        private Build(List<Integer> trees, ExecutorService pool, List<Future<Memtable>> results) {
            this.trees = trees;
            this.pool = pool;
            this.results = results;
        }

        /**
         * Waits for each tree's memtable and puts it in the tree (whose memtable is empty: a tree opens with none).
         *
         * @return the bytes the memtables grew by
         */
        long install(Db db) {
            long grown = 0;
            for (int i = 0; i < trees.size(); i++) {
                int t = trees.get(i);
                Memtable recovered = pool == null ? built(lists[t], perTree.get(t)) : result(results.get(i));
                lists[t].expectTotal(0); // a size told near the log's end would size the live memtable's next chunk
                recovered.markLogged();
                db.trees[t].installRecovered(recovered);
                grown += recovered.bytes();
            }
            return grown;
        }

        private Memtable result(Future<Memtable> result) {
            try {
                return result.get();
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
            }
        }

        /**
         * Stops the threads and waits until they end: an open failing meanwhile hands back the replay's memory before
         * it throws, for an open retried at once (the build does not look at the interrupt but between a tree's sort
         * and its linking; found by a review, ReplayBuildStopTest).
         */
        @Override
        public void close() {
            if (pool == null) {
                return;
            }
            pool.shutdownNow();
            boolean interrupted = false;
            while (!pool.isTerminated()) {
                try {
                    pool.awaitTermination(1, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    interrupted = true; // the threads' work is bounded: finish waiting, then tell the caller
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One tree's writes, placed in {@code list}, sorted and linked into a memtable (not yet any tree's). */
    private static Memtable built(ArenaSkipList list, Writes writes) {
        int n = writes.count;
        InternalKeySort.Result sorted = InternalKeySort.order(list, writes.nodes, n);
        if (Thread.currentThread().isInterrupted()) { // the open failed meanwhile (Build.close): no linking
            throw new java.util.concurrent.CancellationException("the open failed");
        }
        // A record that writes one key twice (not written by this engine: it logs one write per key per batch) has
        // no one key order for its writes: they are added in log order, as a live write adds them.
        Memtable recovered = sorted.keyAndSequenceTwice() ? Memtable.recoveredInLogOrder(list, writes.nodes, n)
                : Memtable.recovered(list, sorted.order());
        writes.nodes = null;
        return recovered;
    }
}
