package dev.lacuna.lsm;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How large each memtable recovery rebuilds will grow, told to its skip list as the replay goes
 * ({@link ArenaSkipList#expectTotal}), so that it takes its memory in one large chunk instead of doubling up to it
 * from 16 KB. Doubling, each young collection during the replay copied the chunks below G1's humongous size (pauses
 * of 35–55 ms in an open of 8 MB of log, four partitions of 2 MB), and the last chunk left up to half its room
 * unused. A tree's size is its share of the bytes decoded so far (over every decoding thread) times the bytes the
 * log said it would hand over ({@link #logBytes}), and a sixteenth more, so that a share a little low does not end
 * in one more chunk. The log's bytes stop at the zeros its last segment ends in (its preallocation, which a user may
 * set as large as a segment), so that they are not shared out as room; a torn tail's bytes still count.
 */
final class ChunkShares {
    /** Records a decoding task reads between two tellings. */
    static final int EVERY = 64;
    /**
     * Records decoded before anything is told: a share measured on a few (16 a tree, in ReplayChunkSizingTest) was up
     * to a third off, and the chunk it sized was too large or followed by another.
     */
    private static final int SAMPLE_RECORDS = 1_024;
    /**
     * The bytes a record takes in the log's segments besides its payload, about: a fragment's header and the LSN (the
     * log's FORMAT.md). Counted with the payloads, the records decoded are in the log's units.
     */
    private static final int RECORD_FRAMING = 11 + 8;

    /** Per tree, the bytes its nodes take (about) of the records decoded so far. */
    private final AtomicLongArray placed;
    /** The bytes of the log the records decoded so far take, about. */
    private final AtomicLong decoded = new AtomicLong();
    private final AtomicLong records = new AtomicLong();
    /** The bytes of log the replay reads; 0 (nothing told) until the log says. */
    private volatile long logBytes;

    ChunkShares(int trees) {
        placed = new AtomicLongArray(trees);
    }

    /** The log's word, before its first record: the bytes from that record to the log's end. */
    void logBytes(long bytes) {
        logBytes = bytes;
    }

    /** The bytes a record whose payload is {@code payloadLength} long takes in the log, about. */
    static long framed(int payloadLength) {
        return payloadLength + RECORD_FRAMING;
    }

    /**
     * Adds what a decoding task decoded since its last telling ({@code decodedSince} bytes of log in
     * {@code recordsSince} records; per tree, {@code placedSince} bytes of nodes, cleared here) to the totals and,
     * from the {@value #SAMPLE_RECORDS}th record on, tells each of those trees' lists its size.
     */
    void tell(long[] placedSince, long decodedSince, int recordsSince, ArenaSkipList[] lists) {
        if (recordsSince == 0) {
            return;
        }
        long log = logBytes;
        long decodedSoFar = decoded.addAndGet(decodedSince);
        boolean tell = log > 0 && records.addAndGet(recordsSince) >= SAMPLE_RECORDS && decodedSoFar > 0;
        double logPerDecoded = (double) log / Math.max(1, decodedSoFar);
        for (int t = 0; t < placedSince.length; t++) {
            if (placedSince[t] > 0) {
                long treeSoFar = placed.addAndGet(t, placedSince[t]);
                placedSince[t] = 0;
                if (tell) {
                    lists[t].expectTotal((long) (treeSoFar * logPerDecoded * 17 / 16));
                }
            }
        }
    }
}
