package dev.lacuna.wal;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.RecoveryMode;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Validates the segments found in a log directory and leaves them all sealed and durable: every record is
 * read and checked, a torn tail of the last segment is cut off (in {@link RecoveryMode#TOLERATE_TORN_TAIL}), and
 * damage anywhere else is a {@link CorruptionException}. Nothing is changed on disk until every segment
 * has been checked, so a refused log is left exactly as it was found.
 */
final class WalRecovery {
    /**
     * What recovery found.
     *
     * @param segments    surviving segments: number → first LSN, ascending
     * @param nextLsn     the LSN the next appended record gets
     * @param nextSegment the number the next segment gets
     * @param droppedTail bytes cut from the end of the last segment (0 if it ended cleanly)
     */
    record Result(TreeMap<Long, Long> segments, long nextLsn, long nextSegment, long droppedTail) {
    }

    /**
     * How the last segment ends, once checked.
     *
     * @param header  its header; null if the file is shorter than a header (to be deleted)
     * @param cutAt   where to cut it: just past its last record, or past its seal if it has one
     * @param seal    whether a seal must be written at {@code cutAt}
     * @param nextLsn the LSN after its last record
     */
    private record Tail(SegmentHeader header, long cutAt, boolean seal, long nextLsn) {
    }

    private WalRecovery() {
    }

    static Result recover(Vfs vfs, Path dir, WalOptions options, Wal.Coverage coverage) throws IOException {
        return recover(vfs, dir, options, coverage, null);
    }

    /**
     * As {@link #recover(Vfs, Path, WalOptions, Wal.Coverage)}, handing {@code replay} the records it checks; what
     * the replay's owner throws is thrown as itself.
     */
    static Result recover(Vfs vfs, Path dir, WalOptions options, Wal.Coverage coverage, WalReplay replay)
            throws IOException {
        try {
            return check(vfs, dir, options, coverage, replay);
        } catch (WalReplay.OwnerFailure e) {
            RuntimeException owners = e.owners();
            for (Throwable closing : e.getSuppressed()) { // a segment's close that failed as it went out
                owners.addSuppressed(closing);
            }
            throw owners;
        }
    }

    private static Result check(Vfs vfs, Path dir, WalOptions options, Wal.Coverage coverage, WalReplay replay)
            throws IOException {
        List<Long> numbers = new ArrayList<>();
        for (String name : vfs.list(dir)) {
            long n = WalFormat.parseSegmentName(name);
            if (n >= 0) {
                numbers.add(n);
            }
        }
        TreeMap<Long, Long> segments = new TreeMap<>();
        long nextLsn = 1;
        Tail tail = null;
        for (int i = 0; i < numbers.size(); i++) {
            long number = numbers.get(i);
            boolean last = i == numbers.size() - 1;
            Path path = dir.resolve(WalFormat.segmentName(number));
            if (i > 0 && number != numbers.get(i - 1) + 1) {
                throw new CorruptionException(dir.resolve(WalFormat.segmentName(numbers.get(i - 1) + 1)).toString(), 0,
                        "write-ahead log: segment " + (numbers.get(i - 1) + 1) + " is missing");
            }
            try (VfsFile file = vfs.openReadOnly(path)) { // checking only: changes wait for the verdict
                SegmentHeader header = SegmentHeader.read(file, number);
                if (header == null) {
                    if (!last || options.recoveryMode() == RecoveryMode.ABSOLUTE) {
                        throw new CorruptionException(path.toString(), 0, "write-ahead log: segment shorter than its header");
                    }
                    tail = new Tail(null, 0, false, nextLsn); // its creation was cut short: it never held a record
                    continue;
                }
                if (!segments.isEmpty() && header.firstLsn() != nextLsn) {
                    throw new CorruptionException(path.toString(), WalFormat.FIRST_LSN_OFFSET, "write-ahead log: segment starts at LSN "
                            + header.firstLsn() + " but the one before it ends at " + (nextLsn - 1));
                }
                List<Long> later = numbers.subList(i + 1, numbers.size());
                Hand hand = replay == null ? null : (reader, rest) -> replay.hand(reader, rest, vfs, dir, later,
                        numbers.get(numbers.size() - 1), options);
                if (last) {
                    tail = checkLast(file, header, options.recoveryMode(), replay, hand);
                    nextLsn = tail.nextLsn();
                } else {
                    nextLsn = checkSealed(file, header, replay, hand);
                }
                segments.put(number, header.firstLsn());
            }
        }
        // A last segment whose creation was cut short is deleted below: its number is used again, so
        // the numbers stay consecutive.
        long nextSegment = !segments.isEmpty() ? segments.lastKey() + 1 : numbers.isEmpty() ? 1 : numbers.get(0);
        if (nextSegment > WalFormat.MAX_SEGMENT) {
            throw new CorruptionException(dir.toString(), 0, "write-ahead log: segment numbers exhausted");
        }
        // The owner's check runs before the repair: an open it refuses leaves the log as recovery found it.
        Path lastSegment = numbers.isEmpty() ? null : dir.resolve(WalFormat.segmentName(numbers.get(numbers.size() - 1)));
        coverage.check(new Wal.Recovered(segments.isEmpty() ? nextLsn : segments.firstEntry().getValue(), nextLsn - 1,
                lastSegment, tail == null ? 0 : tail.cutAt()));
        long droppedTail = tail == null ? 0 : repair(vfs, dir, numbers.get(numbers.size() - 1), tail);
        return new Result(segments, nextLsn, nextSegment, droppedTail);
    }

    /** Hands the record {@code reader} just read to the replay; {@code rest}: its segment's bytes from its start. */
    private interface Hand {
        void hand(SegmentReader reader, long rest);
    }

    /**
     * Checks a segment that has a successor: it must have been sealed. Returns the LSN after its last record.
     */
    private static long checkSealed(VfsFile file, SegmentHeader header, WalReplay replay, Hand hand)
            throws IOException {
        SegmentReader reader = new SegmentReader(file, header);
        long size = file.size();
        while (step(reader, size, replay, hand)) {
            // every record is decoded and checked, and handed to the replay if it wants it
        }
        switch (reader.end()) {
            case ZERO_FILL -> throw new CorruptionException(file.name(), reader.validEnd(),
                    "write-ahead log: zero fill inside a sealed segment");
            case LIMIT -> {
                if (header.sealable()) {
                    throw new CorruptionException(file.name(), reader.validEnd(),
                            "write-ahead log: segment followed by another one ends without its seal");
                }
            }
            case SEALED -> {
                if (reader.sealEnd() != size) {
                    throw new CorruptionException(file.name(), reader.sealEnd(),
                            "write-ahead log: data after the seal");
                }
            }
        }
        return reader.expectedLsn();
    }

    /**
     * Checks the last segment, which a crash may have left torn, and decides where it ends. A bad region
     * with nothing well-formed after it, whose first fragment is not one flipped bit away from a
     * well-formed one, is a torn tail; anything else is damage, refused in either mode.
     */
    private static Tail checkLast(VfsFile file, SegmentHeader header, RecoveryMode mode, WalReplay replay,
                                  Hand hand) throws IOException {
        SegmentReader reader = new SegmentReader(file, header);
        long size = file.size();
        CorruptionException damage = null;
        try {
            while (step(reader, size, replay, hand)) {
                // every record is decoded and checked, and handed to the replay if it wants it; records after
                // damage tolerated as a torn tail are not read, as a reader of the repaired log would not
            }
        } catch (CorruptionException e) {
            if (mode == RecoveryMode.ABSOLUTE) {
                throw e;
            }
            damage = e;
        }
        boolean sealed = damage == null && reader.end() == SegmentReader.End.SEALED;
        long end = sealed ? reader.sealEnd() : reader.validEnd();
        // Where nothing written may follow: the damage, the zero fill, the seal's end, or the file's end.
        long stop = damage != null ? damage.offset() : end;
        if (mode == RecoveryMode.ABSOLUTE) {
            if (stop < size && countNonZero(file, stop, size) > 0) {
                throw new CorruptionException(file.name(), stop, "write-ahead log: data after the end of the log");
            }
        } else if (stop < size) {
            long found = TornTail.firstWellFormedFragment(file, header, stop, size, reader.expectedLsn());
            if (found >= 0) {
                throw middleDamage(file, stop, "a well-formed fragment of this segment follows at offset " + found,
                        reader.expectedLsn(), damage, reader.end());
            }
            long flipped = damage == null ? -1
                    : TornTail.flippedBit(file, header, stop, size, reader.expectedLsn());
            if (flipped >= 0) {
                throw middleDamage(file, stop, "one flipped bit in the byte at offset " + flipped + " would make it"
                        + " well-formed, and a torn write does not flip bits", reader.expectedLsn(), damage,
                        reader.end());
            }
        }
        return new Tail(header, end, header.sealable() && !sealed, reader.expectedLsn());
    }

    /**
     * Reads and checks the next record below {@code limit} (the segment's size), handing it over (lent) if the replay
     * wants it; returns whether there was one.
     */
    private static boolean step(SegmentReader reader, long limit, WalReplay replay, Hand hand) throws IOException {
        if (replay == null || reader.expectedLsn() < replay.fromLsn()) {
            return reader.skip(limit);
        }
        long at = reader.validEnd(); // where the record starts (its first fragment), past the one before
        if (!reader.skip(limit)) {
            return false;
        }
        hand.hand(reader, limit - at);
        return true;
    }

    private static CorruptionException middleDamage(VfsFile file, long stop, String evidence, long lsn,
                                                    CorruptionException damage, SegmentReader.End end) {
        String what = damage != null ? damage.detail()
                : end == SegmentReader.End.SEALED ? "write-ahead log: data after the seal"
                : "write-ahead log: zeros where the next record should be";
        return new CorruptionException(file.name(), stop, what + ", but " + evidence + ": damage, not a torn"
                + " tail. Records from LSN " + lsn + " on cannot be read and may have been acknowledged as"
                + " durable, so recovery changed nothing");
    }

    /** Deletes a last segment shorter than its header, or cuts the last segment, seals it and makes it durable. */
    private static long repair(Vfs vfs, Path dir, long number, Tail tail) throws IOException {
        Path path = dir.resolve(WalFormat.segmentName(number));
        if (tail.header() == null) {
            long size = vfs.size(path);
            vfs.delete(path);
            vfs.syncDirectory(dir);
            return size;
        }
        try (VfsFile file = vfs.open(path)) {
            long size = file.size();
            long dropped = size > tail.cutAt() ? countNonZero(file, tail.cutAt(), size) : 0;
            if (size > tail.cutAt()) {
                // Cut before sealing: a crash between the two then leaves a clean cut, never a seal with the
                // torn bytes after it.
                file.truncate(tail.cutAt());
            }
            if (tail.seal()) {
                byte[] seal = WalFormat.seal(tail.cutAt(), number, tail.header().blockSize());
                file.write(tail.cutAt(), seal, 0, seal.length);
            }
            // Always, even when nothing was cut or sealed: the segment may hold records (even its seal) that
            // were never made durable — the fsync that should have failed, or the process stopped first. From
            // here on readers see them and the next segment follows this one, so a power loss must not take
            // them back (the log would refuse to open, a sealed segment followed by another one ending in
            // zeros).
            file.force();
            return dropped;
        }
    }

    private static long countNonZero(VfsFile file, long from, long to) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        long count = 0;
        for (long pos = from; pos < to; ) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), to - pos));
            int n = file.read(buffer, pos);
            if (n < 0) {
                break;
            }
            byte[] bytes = buffer.array(); // not get(i): a megabyte of zero fill is counted on every open after a crash
            for (int i = 0; i < n; i++) {
                if (bytes[i] != 0) {
                    count++;
                }
            }
            pos += n;
        }
        return count;
    }
}
