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
import org.junit.jupiter.api.Test;

/**
 * An owner replays the log from the records its open hands over ({@link Wal#open(dev.lacuna.vfs.Vfs,
 * java.nio.file.Path, WalOptions, Wal.Coverage, long, java.util.function.Consumer)}) instead of reading it again:
 * when the open succeeds they must be exactly what a reader of the opened log reads from the same LSN, whatever
 * a crash left (torn tails, lost segments, records spanning blocks and segments), in either recovery mode; when
 * it fails, it fails as the plain open does.
 */
class WalOpenReplayTest {
    @Test
    void shouldHandOverWhatAReaderOfTheOpenedLogReads() throws Exception {
        Random random = new Random(11);
        int compared = 0;
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
                String handedOverOutcome = open(crashed.crashClone(), options, from, handedOver, true);
                List<String> read = new ArrayList<>();
                String readOutcome = open(crashed.crashClone(), options, from, read, false);

                assertThat(handedOverOutcome).as("round %d", round).isEqualTo(readOutcome);
                if (readOutcome.equals("opened")) {
                    assertThat(handedOver).as("round %d from LSN %d", round, from).isEqualTo(read);
                    compared += read.size();
                }
            }
        }
        assertThat(compared).as("records compared").isGreaterThan(1000);
    }

    /** Opens the log in {@code vfs} and collects its records from {@code from}: handed over, or read after. */
    private static String open(MemVfs vfs, WalOptions options, long from, List<String> out, boolean handOver) {
        // As the engine's check does, refuse a log that ends before the first LSN wanted.
        Wal.Coverage coverage = log -> {
            if (from > log.last() + 1) {
                throw new IllegalStateException("the log ends at LSN " + log.last());
            }
        };
        try (Wal wal = handOver
                ? Wal.open(vfs, WalTest.DIR, options, coverage, from, r -> out.add(describe(r)))
                : Wal.open(vfs, WalTest.DIR, options, coverage)) {
            if (!handOver) {
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
        return r.lsn() + ":" + Arrays.toString(r.payload());
    }
}
