package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The owner's coverage check ({@link Wal.Coverage}) runs on every open, is told the recovered log as it is — the
 * LSNs it holds and where its last segment's records end — and, when it refuses, the open fails with its error
 * and leaves every file as recovery found it: a torn tail not cut, no new segment. This is what keeps an engine
 * from opening on a log that lost records the manifest says were durable. Written after mutation testing found
 * that removing the call, or reporting the wrong last LSN, passed every test of this module (the engine's suites
 * that depend on it run in other modules).
 */
class WalCoverageCheckTest {
    private static final Path DIR = WalTest.DIR;
    private static final WalOptions OPTIONS = WalTest.SMALL;
    private static final int RECORDS = 6;

    @Test
    void shouldRefuseTheOpenWhenTheOwnersCheckDoesAndChangeNothing() throws IOException {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            for (int i = 0; i < RECORDS; i++) {
                wal.append(WalTest.payload(i, 30), Durability.SYNC);
            }
            vfs = vfs.crashClone(); // a power loss with the segment live: recovery would cut its zero tail and seal it
        }
        MemVfs crashed = vfs;
        TreeMap<String, byte[]> before = files(crashed);
        List<Wal.Recovered> seen = new ArrayList<>();
        CorruptionException refusal = new CorruptionException("MANIFEST-000001", 0, "the log ends before LSN 9");
        assertThatThrownBy(() -> Wal.open(crashed, DIR, OPTIONS, log -> {
            seen.add(log);
            throw refusal;
        })).isSameAs(refusal);
        assertThat(seen).hasSize(1);
        Wal.Recovered log = seen.get(0);
        assertThat(log.first()).isEqualTo(1);
        assertThat(log.last()).isEqualTo(RECORDS);
        assertThat(log.lastSegment()).isEqualTo(DIR.resolve(WalFormat.segmentName(1)));
        assertThat(log.end()).as("where the records end").isPositive()
                .isLessThan(crashed.readAll(log.lastSegment()).length);
        TreeMap<String, byte[]> after = files(crashed);
        assertThat(after.keySet()).as("files after the refused open").isEqualTo(before.keySet());
        before.forEach((name, bytes) -> assertThat(after.get(name)).as("content of %s", name).isEqualTo(bytes));

        // Accepted, the same log opens with every record.
        List<Wal.Recovered> accepted = new ArrayList<>();
        try (Wal wal = Wal.open(crashed, DIR, OPTIONS, accepted::add)) {
            assertThat(accepted).hasSize(1);
            assertThat(accepted.get(0).last()).isEqualTo(RECORDS);
            assertThat(WalTest.readAll(wal, 1)).extracting(WalRecord::lsn).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        }
    }

    private static TreeMap<String, byte[]> files(MemVfs vfs) throws IOException {
        TreeMap<String, byte[]> out = new TreeMap<>();
        for (String name : vfs.list(DIR)) {
            if (WalFormat.parseSegmentName(name) >= 0) {
                out.put(name, vfs.readAll(DIR.resolve(name)));
            }
        }
        return out;
    }
}
