package dev.lacuna.wal;

import dev.lacuna.storage.RecoveryMode;
import dev.lacuna.storage.WalOptions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.function.Executable;

/**
 * Fuzzes the decoding of the write-ahead log: whatever bytes are in the log directory, the segment reader
 * and recovery ({@link Wal#open}) may only answer with records or a {@link CorruptionException}; any other
 * exception, a wrong record, or a reader that stops making progress fails the test.
 *
 * <p>Without {@code JAZZER_FUZZ} (every {@code mvn test}) each method runs once per input stored in
 * {@code src/test/resources/dev/lacuna/wal/WalReaderFuzzTestInputs/<method name>/}: the seeds, and any
 * crash a fuzzing session found (Jazzer writes its {@code crash-*} files there; they are kept as regression
 * tests, renamed {@code finding-*}). The seeds were written by the real {@link Wal} with 64-byte blocks, then
 * cut or damaged: a sealed and a preallocated segment, truncations, flipped bits, an empty file, a lone header
 * (format version 1), and a sealed segment, one with a flip before its seal and a live one with a flip
 * before more records (version 2, {@code *-v2*}).
 * To fuzz one method (one per run):
 * <pre>JAZZER_FUZZ=1 mvn -pl engine-wal test -Dtest='WalReaderFuzzTest#segmentFile'</pre>
 *
 * <p>Checks, for every input:
 * <ul>
 *   <li>(a) {@link SegmentHeader#read} and a {@link SegmentReader} loop up to the file's size: each record
 *       advances the reader, carries the next LSN and ends within the limit, and there are never more
 *       records than input bytes (so a reader that spins fails instead of hanging);</li>
 *   <li>(b) {@link Wal#open} in both {@link RecoveryMode}s, each on its own copy of the directory; when it
 *       succeeds, reading from {@link Wal#firstLsn()} gives exactly the records (a) decoded before the first
 *       damage; an {@link RecoveryMode#ABSOLUTE} success implies that (a) found no damage and that
 *       {@link RecoveryMode#TOLERATE_TORN_TAIL} succeeds too;</li>
 *   <li>recovery leaves a clean log: after a tolerant open, one append and a close, an absolute reopen
 *       succeeds and reads back the same records plus the appended one.</li>
 * </ul>
 */
class WalReaderFuzzTest {
    /** Jazzer fuzzes when JAZZER_FUZZ is set to anything (its own test); otherwise it replays the stored inputs. */
    private static final boolean FUZZING = !System.getenv().getOrDefault("JAZZER_FUZZ", "").isEmpty();
    private static final Duration REGRESSION_TIMEOUT = Duration.ofSeconds(30);
    private static final Path DIR = Path.of("/fuzz/wal");
    /** Small blocks and preallocation keep every execution cheap; the block size read is the header's anyway. */
    private static final WalOptions OPTIONS = WalOptions.defaults()
            .withBlockSize(WalOptions.MIN_BLOCK_SIZE)
            .withSegmentSize(4096)
            .withPreallocate(256);
    /** Segment numbers the {@link #logDirectory} target picks from: small, past 32 bits, largest 16-digit ones. */
    private static final long[] FIRST_SEGMENTS = {1, 2, 0x1_0000_0001L, 9_999_999_999_999_998L};
    private static final byte[] ZERO_FRAGMENT_HEADER = new byte[WalFormat.FRAGMENT_HEADER_SIZE];
    private static final byte[] APPENDED = {'f', 'u', 'z', 'z'};

    /**
     * The input is the whole content of segment 1, the log's only file.
     */
    @FuzzTest(maxDuration = "2m")
    void segmentFile(byte[] input) throws Throwable {
        TreeMap<Long, byte[]> files = new TreeMap<>();
        files.put(1L, input);
        withHangGuard(() -> checkLog(files, input.length));
    }

    /**
     * The input describes a directory of one or two segments:
     * <pre>
     * byte 0     control: bit 0   two segments (else one)
     *                     bit 1   repair checksums: the header's and every fragment's CRC is recomputed
     *                             (magic, version and the header's segment number too), so the fuzzer
     *                             reaches the checks behind them
     *                     bits 2-3 number of the first segment, one of {@link #FIRST_SEGMENTS}
     * bytes 1-2  u16 little-endian: length of the first segment's file (two segments only; clamped)
     * the rest   the file contents, first segment first
     * </pre>
     * A shorter input is a single empty segment 1.
     */
    @FuzzTest(maxDuration = "2m")
    void logDirectory(byte[] input) throws Throwable {
        TreeMap<Long, byte[]> files = new TreeMap<>();
        if (input.length < 3) {
            files.put(1L, new byte[0]);
        } else {
            int control = input[0] & 0xFF;
            boolean two = (control & 1) != 0;
            boolean repair = (control & 2) != 0;
            long first = FIRST_SEGMENTS[(control >>> 2) & 3];
            int rest = input.length - 3;
            int firstLength = two ? Math.min(WalFormat.getUnsignedShort(input, 1), rest) : rest;
            byte[] a = Arrays.copyOfRange(input, 3, 3 + firstLength);
            files.put(first, repair ? repair(a, first) : a);
            if (two) {
                byte[] b = Arrays.copyOfRange(input, 3 + firstLength, input.length);
                files.put(first + 1, repair ? repair(b, first + 1) : b);
            }
        }
        withHangGuard(() -> checkLog(files, input.length));
    }

    /**
     * Runs {@code check} under a preemptive timeout in regression mode, so that a hang inside the code
     * under test fails the build instead of blocking it. Not while fuzzing: there JUnit's timeouts would
     * apply to the whole session (jazzer issue #930, so no {@code @Timeout} on the methods), a thread per
     * execution would cost throughput, and the loops of this test are bounded by the input's length anyway;
     * a hang inside the code under test is left to libFuzzer's per-input timeout (20 minutes by default).
     */
    private static void withHangGuard(Executable check) throws Throwable {
        if (FUZZING) {
            check.execute();
        } else {
            assertTimeoutPreemptively(REGRESSION_TIMEOUT, check);
        }
    }

    // ---- the checks ----

    /** What the segment reader made of one file: the records before any damage, and whether there was some. */
    private record Scan(List<WalRecord> records, boolean damaged) {
    }

    private static void checkLog(TreeMap<Long, byte[]> files, int inputLength) throws IOException {
        // (a) every file on its own, through the segment reader
        List<WalRecord> decoded = new ArrayList<>();
        boolean anyDamage = false;
        for (Map.Entry<Long, byte[]> e : files.entrySet()) {
            Scan scan = scan(e.getKey(), e.getValue(), inputLength);
            decoded.addAll(scan.records());
            anyDamage |= scan.damaged();
        }

        // (b) recovery, in each mode on its own copy of the directory
        List<WalRecord> absolute = recoverAndRead(files, RecoveryMode.ABSOLUTE, inputLength, null);
        List<WalRecord> tolerant = recoverAndRead(files, RecoveryMode.TOLERATE_TORN_TAIL, inputLength, decoded);
        if (absolute != null) {
            assertThat(anyDamage).as("absolute recovery accepted a log the segment reader found damaged").isFalse();
            assertSameRecords(absolute, decoded);
            assertThat(tolerant).as("tolerant recovery refused a log that absolute recovery accepted").isNotNull();
        }
        if (tolerant != null) {
            assertSameRecords(tolerant, decoded);
        }
    }

    /** (a): the header, then records until the reader returns null or throws. */
    private static Scan scan(long number, byte[] bytes, int inputLength) throws IOException {
        MemVfs vfs = vfsWith(Map.of(number, bytes));
        try (VfsFile file = vfs.openReadOnly(DIR.resolve(WalFormat.segmentName(number)))) {
            SegmentHeader header;
            try {
                header = SegmentHeader.read(file, number);
            } catch (CorruptionException e) {
                return new Scan(List.of(), true);
            }
            if (header == null) {
                assertThat(bytes.length).isLessThan(WalFormat.HEADER_SIZE);
                return new Scan(List.of(), false);
            }
            assertThat(header.segment()).isEqualTo(number);
            assertThat(header.blockSize()).isBetween(WalOptions.MIN_BLOCK_SIZE, WalOptions.MAX_BLOCK_SIZE);
            assertThat(header.firstLsn()).isPositive();

            SegmentReader reader = new SegmentReader(file, header);
            long limit = bytes.length;
            List<WalRecord> records = new ArrayList<>();
            try {
                while (true) {
                    long before = reader.validEnd();
                    long expectedLsn = reader.expectedLsn();
                    WalRecord record = reader.next(limit);
                    if (record == null) {
                        assertThat(reader.end()).isNotNull();
                        assertThat(reader.validEnd()).isEqualTo(before);
                        break;
                    }
                    records.add(record);
                    // progress: every record moves the reader forward, within the limit; never more
                    // records than input bytes, so an endless loop fails here instead of spinning
                    if (reader.validEnd() <= before || reader.validEnd() > limit || records.size() > inputLength) {
                        throw new AssertionError("reader made no progress or overran the limit: record "
                                + records.size() + " ends at " + reader.validEnd() + " (was " + before
                                + ", limit " + limit + ", input " + inputLength + " bytes)");
                    }
                    assertThat(record.lsn()).isEqualTo(expectedLsn);
                    assertThat(reader.expectedLsn()).isEqualTo(expectedLsn + 1);
                }
            } catch (CorruptionException e) {
                assertThat(reader.validEnd()).isBetween((long) WalFormat.HEADER_SIZE, limit);
                return new Scan(records, true);
            }
            return new Scan(records, false);
        }
    }

    /**
     * (b): opens the log in {@code mode} on a copy of {@code files} and reads every record back.
     *
     * @param decoded if not null, also checks that recovery left a clean log (see the class comment),
     *                expecting these records in it
     * @return the records, or null if recovery refused the log with a {@link CorruptionException}
     */
    private static List<WalRecord> recoverAndRead(TreeMap<Long, byte[]> files, RecoveryMode mode, int inputLength,
                                                  List<WalRecord> decoded) throws IOException {
        MemVfs vfs = vfsWith(files);
        List<WalRecord> records;
        try (Wal wal = open(vfs, mode)) {
            if (wal == null) {
                return null;
            }
            records = readAll(wal, inputLength);
            assertThat(wal.lastLsn()).isEqualTo(wal.firstLsn() + records.size() - 1);
            if (decoded == null) {
                return records;
            }
            assertSameRecords(records, decoded);
            long appended = wal.append(APPENDED, Durability.SYNC);
            assertThat(appended).isEqualTo(wal.firstLsn() + records.size());
        }
        // recovery cut the damage away and sealed everything: a strict reopen must accept the result
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS.withRecoveryMode(RecoveryMode.ABSOLUTE))) {
            List<WalRecord> again = readAll(wal, inputLength + 1);
            assertThat(again).hasSize(records.size() + 1);
            assertSameRecords(again.subList(0, records.size()), records);
            assertThat(again.get(records.size()).payload()).isEqualTo(APPENDED);
        }
        return records;
    }

    private static Wal open(MemVfs vfs, RecoveryMode mode) {
        try {
            return Wal.open(vfs, DIR, OPTIONS.withRecoveryMode(mode));
        } catch (CorruptionException e) {
            return null;
        }
    }

    /** Every record from the first retained one; no CorruptionException is allowed here: recovery checked them all. */
    private static List<WalRecord> readAll(Wal wal, int bound) {
        List<WalRecord> records = new ArrayList<>();
        long expected = wal.firstLsn();
        try (WalReader reader = wal.reader(expected)) {
            for (WalRecord r = reader.next(); r != null; r = reader.next()) {
                assertThat(r.lsn()).isEqualTo(expected++);
                records.add(r);
                if (records.size() > bound) {
                    throw new AssertionError("read back more records (" + records.size() + ") than input bytes (" + bound + ")");
                }
            }
        }
        return records;
    }

    private static void assertSameRecords(List<WalRecord> actual, List<WalRecord> expected) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < actual.size(); i++) {
            assertThat(actual.get(i).lsn()).as("LSN of record %d", i).isEqualTo(expected.get(i).lsn());
            assertThat(actual.get(i).payload()).as("payload of record %d", i).isEqualTo(expected.get(i).payload());
        }
    }

    private static MemVfs vfsWith(Map<Long, byte[]> files) throws IOException {
        MemVfs vfs = new MemVfs();
        vfs.mkdirs(DIR);
        for (Map.Entry<Long, byte[]> e : files.entrySet()) {
            try (VfsFile file = vfs.create(DIR.resolve(WalFormat.segmentName(e.getKey())))) {
                file.write(0, e.getValue(), 0, e.getValue().length);
                file.force();
            }
        }
        vfs.syncDirectory(DIR);
        return vfs;
    }

    // ---- checksum repair for logDirectory ----

    /**
     * A copy of {@code file} with a well-formed header checksum (and magic, version, segment number) and
     * every fragment checksum recomputed, walking fragments as a reader would until one does not fit.
     * A block size outside the valid range becomes a small valid one, so fragments span blocks.
     */
    static byte[] repair(byte[] file, long segment) {
        byte[] b = file.clone();
        if (b.length < WalFormat.HEADER_SIZE) {
            return b;
        }
        WalFormat.putLong(b, WalFormat.MAGIC_OFFSET, WalFormat.MAGIC);
        int version = WalFormat.getInt(b, WalFormat.VERSION_OFFSET);
        if (version < WalFormat.MIN_VERSION || version > WalFormat.VERSION) {
            // a version this build reads; the stored inputs keep theirs (1: no seal), the fuzzer may pick either
            WalFormat.putInt(b, WalFormat.VERSION_OFFSET, WalFormat.VERSION);
        }
        int blockSize = WalFormat.getInt(b, WalFormat.BLOCK_SIZE_OFFSET);
        if (blockSize < WalOptions.MIN_BLOCK_SIZE || blockSize > WalOptions.MAX_BLOCK_SIZE) {
            blockSize = WalOptions.MIN_BLOCK_SIZE + (blockSize & 0xFF);
            WalFormat.putInt(b, WalFormat.BLOCK_SIZE_OFFSET, blockSize);
        }
        WalFormat.putLong(b, WalFormat.SEGMENT_OFFSET, segment);
        WalFormat.putInt(b, WalFormat.HEADER_CRC_OFFSET, WalFormat.crc(b, 0, WalFormat.HEADER_CRC_OFFSET));
        int pos = WalFormat.HEADER_SIZE;
        while (pos + WalFormat.FRAGMENT_HEADER_SIZE <= b.length) {
            int blockLeft = blockSize - pos % blockSize;
            if (blockLeft < WalFormat.FRAGMENT_HEADER_SIZE) {
                pos += blockLeft;
                continue;
            }
            if (Arrays.equals(b, pos, pos + WalFormat.FRAGMENT_HEADER_SIZE, ZERO_FRAGMENT_HEADER, 0,
                    WalFormat.FRAGMENT_HEADER_SIZE)) {
                break; // zero fill: where the reader stops; a checksum here would turn it into a bad fragment
            }
            int length = WalFormat.getUnsignedShort(b, pos + WalFormat.FRAGMENT_LENGTH_OFFSET);
            int end = pos + WalFormat.FRAGMENT_HEADER_SIZE + length;
            if (length > blockLeft - WalFormat.FRAGMENT_HEADER_SIZE || end > b.length) {
                break;
            }
            int crcLength = end - (pos + WalFormat.FRAGMENT_TYPE_OFFSET);
            WalFormat.putInt(b, pos + WalFormat.FRAGMENT_CRC_OFFSET,
                    WalFormat.crc(b, pos + WalFormat.FRAGMENT_TYPE_OFFSET, crcLength));
            pos = end;
        }
        return b;
    }
}
