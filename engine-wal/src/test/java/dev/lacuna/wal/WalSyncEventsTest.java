package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review M4: the fsync's JFR event is telemetry, and must never decide whether a write is durable. An event
 * type whose class cannot be initialised (no jdk.jfr in the runtime, say) failed the first SYNC write and every
 * one after it; an event whose commit threw reported as failed a write the fsync had made durable.
 */
class WalSyncEventsTest {
    private static final Path DIR = Path.of("/wal");

    /** Times each fsync with {@code timing}, or throws {@code beginError} instead; counts the fsyncs it was asked to time. */
    private static final class Sink implements SyncEvents {
        final AtomicInteger begun = new AtomicInteger();
        final SyncEvents.Timing timing;
        final Error beginError;

        Sink(SyncEvents.Timing timing, Error beginError) {
            this.timing = timing;
            this.beginError = beginError;
        }

        @Override
        public Timing begin() {
            begun.incrementAndGet();
            if (beginError != null) {
                throw beginError;
            }
            return timing;
        }
    }

    /** A timing whose commit throws {@code failure}. */
    private static SyncEvents.Timing commitThrows(Throwable failure) {
        return new SyncEvents.Timing() {
            @Override
            public void end() {
            }

            @Override
            public void commit(Path log, long records, long bytes) {
                if (failure instanceof Error e) {
                    throw e;
                }
                throw (RuntimeException) failure;
            }
        };
    }

    private static List<String> reopenAndRead(MemVfs vfs) {
        List<String> out = new ArrayList<>();
        try (Wal wal = Wal.open(vfs, DIR, WalOptions.defaults()); WalReader r = wal.reader(1)) {
            for (WalRecord rec = r.next(); rec != null; rec = r.next()) {
                out.add(new String(rec.payload()));
            }
        }
        return out;
    }

    @Test
    void shouldMakeSyncWritesDurableWhenTheEventTypeCannotBeInitialised() {
        MemVfs vfs = new MemVfs();
        // What the first use of an event class whose static initialiser failed throws, and every use after it.
        Sink sink = new Sink(null, new NoClassDefFoundError("Could not initialize class dev.lacuna.wal.LogSyncEvent"));
        try (Wal wal = Wal.open(vfs, DIR, WalOptions.defaults(), log -> { }, sink)) {
            long first = wal.append("a".getBytes(), Durability.SYNC);
            long second = wal.append("b".getBytes(), Durability.SYNC);
            assertThat(wal.durableLsn()).isGreaterThanOrEqualTo(second).isGreaterThan(first);
            assertThat(sink.begun).as("events that failed are asked no more").hasValue(1);
        }
        assertThat(reopenAndRead(vfs)).containsExactly("a", "b");
    }

    @Test
    void shouldReportASyncWriteDurableWhenItsEventFailsToCommit() {
        MemVfs vfs = new MemVfs();
        Sink sink = new Sink(commitThrows(new IllegalStateException("event commit failed")), null);
        try (Wal wal = Wal.open(vfs, DIR, WalOptions.defaults(), log -> { }, sink)) {
            long lsn = wal.append("a".getBytes(), Durability.SYNC);
            assertThat(wal.durableLsn()).isGreaterThanOrEqualTo(lsn);
            wal.append("b".getBytes(), Durability.SYNC);
            assertThat(sink.begun).as("a sink that failed is asked no more").hasValue(1);
        }
        assertThat(reopenAndRead(vfs)).containsExactly("a", "b");
    }

    /**
     * A virtual machine error is not swallowed (the JVM may be unable to go on), but the sync that met it had
     * made its records durable first, and says so: waiting writers are not failed for it.
     */
    @Test
    void shouldPublishDurabilityBeforeAVirtualMachineErrorFromTheEventEscapes() {
        MemVfs vfs = new MemVfs();
        Sink sink = new Sink(commitThrows(new OutOfMemoryError("event")), null);
        try (Wal wal = Wal.open(vfs, DIR, WalOptions.defaults(), log -> { }, sink)) {
            assertThatThrownBy(() -> wal.append("a".getBytes(), Durability.SYNC)).isInstanceOf(OutOfMemoryError.class);
            assertThat(wal.durableLsn()).as("the fsync made record 1 durable before the event failed").isEqualTo(1);
        }
        assertThat(reopenAndRead(vfs)).containsExactly("a");
    }
}
