package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.RecoveryMode;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * An owner replays the log from the records its open hands over ({@link Wal#open(dev.lacuna.vfs.Vfs,
 * java.nio.file.Path, WalOptions, Wal.Coverage, long, LongConsumer, java.util.function.Consumer)}, or lent: {@link
 * Wal#open(dev.lacuna.vfs.Vfs, java.nio.file.Path, WalOptions, Wal.Coverage, long, LongConsumer, LentRecords)})
 * instead of reading it again: when the open succeeds they must be exactly what a reader of the opened log reads
 * from the same LSN, whatever a crash left (torn tails, lost segments, records spanning blocks and segments), in
 * either recovery mode; when it fails, it fails as the plain open does. The size it tells comes once, before the
 * first record, between the records' bytes and the segments' (none if no record is handed over).
 */
class WalOpenReplayTest {
    @Test
    void shouldHandOverWhatAReaderOfTheOpenedLogReads() throws Exception {
        Random random = new Random(11);
        int compared = 0;
        int sized = 0;
        for (int round = 0; round < 300; round++) {
            RecoveryMode mode = round % 3 == 0 ? RecoveryMode.ABSOLUTE : RecoveryMode.TOLERATE_TORN_TAIL;
            WalOptions options = WalTest.SMALL.withRecoveryMode(mode);
            MemVfs vfs = new MemVfs();
            int records = random.nextInt(60);
            try (Wal wal = Wal.open(vfs, WalTest.DIR, options)) {
                for (int i = 0; i < records; i++) {
                    byte[] payload = new byte[random.nextInt(4) == 0 ? 100 + random.nextInt(400) : random.nextInt(40)];
                    random.nextBytes(payload);
                    wal.append(payload, random.nextInt(5) == 0 ? Durability.SYNC : Durability.NONE);
                }
                MemVfs crashed = vfs.crashClone(random);
                long from = 1 + random.nextInt(records + 2);

                List<String> handedOver = new ArrayList<>();
                List<long[]> told = new ArrayList<>(); // {bytes, records handed over before}
                // Handed over as arrays of their own in even rounds, lent in odd ones (LentRecords).
                String handedOverOutcome = open(crashed.crashClone(), options, from, handedOver, told,
                        round % 2 == 0 ? HandOver.ARRAYS : HandOver.LENT);
                List<String> read = new ArrayList<>();
                String readOutcome = open(crashed.crashClone(), options, from, read, told, HandOver.NONE);

                assertThat(handedOverOutcome).as("round %d", round).isEqualTo(readOutcome);
                if (readOutcome.equals("opened")) {
                    assertThat(handedOver).as("round %d from LSN %d", round, from).isEqualTo(read);
                    compared += read.size();
                    if (read.isEmpty()) {
                        assertThat(told).as("round %d: nothing handed over, no size told", round).isEmpty();
                    } else {
                        assertThat(told).as("round %d: told once", round).hasSize(1);
                        assertThat(told.get(0)[1]).as("round %d: records handed before the size", round).isZero();
                        // At least the records (the zeros ending the last one's payload aside), at most the files.
                        assertThat(told.get(0)[0]).as("round %d", round).isBetween(framed(read) - 8 - 11,
                                segmentsBytes(crashed) - WalFormat.HEADER_SIZE);
                        sized++;
                    }
                }
            }
        }
        assertThat(compared).as("records compared").isGreaterThan(1000);
        assertThat(sized).as("opens that told a size").isGreaterThan(100);
    }

    /** How the records are collected: handed over by the open (as arrays, or lent), or read after it. */
    private enum HandOver { ARRAYS, LENT, NONE }

    /**
     * Opens the log in {@code vfs} and collects its records from {@code from}: handed over (with the size told, and
     * how many records were handed over before it, into {@code told}), or read after.
     */
    private static String open(MemVfs vfs, WalOptions options, long from, List<String> out, List<long[]> told,
                               HandOver handOver) {
        // As the engine's check does, refuse a log that ends before the first LSN wanted.
        Wal.Coverage coverage = log -> {
            if (from > log.last() + 1) {
                throw new IllegalStateException("the log ends at LSN " + log.last());
            }
        };
        LongConsumer size = b -> told.add(new long[] {b, out.size()});
        try (Wal wal = switch (handOver) {
            case ARRAYS -> Wal.open(vfs, WalTest.DIR, options, coverage, from, size, r -> out.add(describe(r)));
            case LENT -> Wal.open(vfs, WalTest.DIR, options, coverage, from, size, (lsn, bytes, at, length) ->
                    out.add(describe(new WalRecord(lsn, Arrays.copyOfRange(bytes, at, at + length)))));
            case NONE -> Wal.open(vfs, WalTest.DIR, options, coverage);
        }) {
            if (handOver == HandOver.NONE) {
                try (WalReader reader = wal.reader(Math.max(from, wal.firstLsn()))) {
                    for (WalRecord r = reader.next(); r != null; r = reader.next()) {
                        out.add(describe(r));
                    }
                }
            }
            return "opened";
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private static String describe(WalRecord r) {
        return r.lsn() + ":" + r.payload().length + ":" + Arrays.toString(r.payload());
    }

    /** The bytes the records {@link #describe described} take in the log: payload, LSN and a fragment header. */
    private static long framed(List<String> described) {
        long total = 0;
        for (String d : described) {
            total += Long.parseLong(d.split(":")[1]) + WalFormat.LSN_SIZE + WalFormat.FRAGMENT_HEADER_SIZE;
        }
        return total;
    }

    private static long segmentsBytes(MemVfs vfs) throws java.io.IOException {
        long total = 0;
        for (String name : vfs.list(WalTest.DIR)) {
            if (WalFormat.parseSegmentName(name) >= 0) {
                total += vfs.size(WalTest.DIR.resolve(name));
            }
        }
        return total;
    }
}
