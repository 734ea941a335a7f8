package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;

/**
 * While a JFR recording wants the {@code dev.lacuna.LogSync} event, the group commit takes another path
 * (the sync events' timing around the fsync): it must still fsync. A {@code SYNC} append is
 * acknowledged only once durable, so a power loss right after it must keep it. (PIT: with the fsync removed
 * from that path, no test noticed, since no test of the log recorded the event.)
 */
class WalSyncEventTest {
    private static final Path DIR = Path.of("/db/wal");
    private static final WalOptions OPTIONS = WalOptions.defaults().withBlockSize(128).withSegmentSize(4096)
            .withPreallocate(512);

    @Test
    void shouldFsyncSyncAppendsWhileARecordingWantsTheSyncEvent() {
        MemVfs disk = new MemVfs();
        List<byte[]> acknowledged = new ArrayList<>();
        List<MemVfs> powerLosses = new ArrayList<>();
        try (Recording recording = new Recording()) {
            recording.enable(LogSyncEvent.class);
            recording.start();
            assertThat(jdk.jfr.EventType.getEventType(LogSyncEvent.class).isEnabled()).as("the event is recorded")
                    .isTrue();
            try (Wal wal = Wal.open(disk, DIR, OPTIONS)) {
                for (int i = 0; i < 5; i++) {
                    byte[] p = WalTest.payload(i, 50);
                    wal.append(p, Durability.SYNC);
                    acknowledged.add(p);
                    powerLosses.add(disk.crashClone());
                }
                assertThat(wal.stats().segmentsCreated()).as("no roll fsynced the records instead").isEqualTo(1);
                assertThat(wal.durableLsn()).isEqualTo(5);
            }
            recording.stop();
        }
        for (int i = 0; i < powerLosses.size(); i++) {
            try (Wal reopened = Wal.open(powerLosses.get(i), DIR, OPTIONS)) {
                assertThat(WalTest.readAll(reopened, 1)).extracting(WalRecord::payload)
                        .as("after a power loss following append %d", i + 1)
                        .containsExactlyElementsOf(acknowledged.subList(0, i + 1));
            }
        }
    }
}
