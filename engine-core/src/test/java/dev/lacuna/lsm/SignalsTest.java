package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The signals an operator reads: the engine's JFR events, recorded in process with no JVM flag, and its
 * {@link System.Logger} lines, captured through the default backend (java.util.logging) with a handler on
 * the {@code dev.lacuna.lsm} logger, whose level the test lowers from the tests' SEVERE and restores.
 */
class SignalsTest {
    private static final Path DIR = Path.of("/db");

    // Held strongly while the test runs: java.util.logging keeps loggers weakly, and a collected logger would
    // lose the level and handler set here.
    private final Logger logger = Logger.getLogger("dev.lacuna.lsm");
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            lines.add(record.getLevel() + " " + record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Level savedLevel;
    private boolean savedUseParent;

    @BeforeEach
    void captureLog() {
        savedLevel = logger.getLevel();
        savedUseParent = logger.getUseParentHandlers();
        logger.setLevel(Level.ALL);
        logger.setUseParentHandlers(false); // captured here, not printed
        logger.addHandler(handler);
    }

    @AfterEach
    void restoreLog() {
        logger.removeHandler(handler);
        logger.setLevel(savedLevel);
        logger.setUseParentHandlers(savedUseParent);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static KvOptions options(dev.lacuna.vfs.Vfs vfs) {
        return KvOptions.builder().vfs(vfs).partitions(1).memtableBytes(4096).memoryBudget(1 << 20)
                .table(SstableOptions.defaults().withBlockSize(256)).levelBaseBytes(16 * 1024).targetFileBytes(4096)
                .wal(WalOptions.defaults().withSegmentSize(64 * 1024).withPreallocate(4096))
                .durability(Durability.SYNC).build();
    }

    @Test
    void shouldCommitFlushCompactionLogSyncAndStallEventsWhileRecordingInProcess(@TempDir Path tmp)
            throws Exception {
        List<RecordedEvent> events;
        try (Recording recording = new Recording()) {
            for (String name : List.of("dev.lacuna.Flush", "dev.lacuna.Compaction", "dev.lacuna.LogSync",
                    "dev.lacuna.WriteStall")) {
                recording.enable(name).withoutThreshold();
            }
            recording.start();
            ControlledVfs vfs = new ControlledVfs(new MemVfs(), ".sst");
            try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
                for (int i = 0; i < 200; i++) {
                    kv.put(b("key" + (i % 50)), b("value-" + i + "-".repeat(40)));
                }
                kv.flush();
                kv.compactRange(null, null);

                // A stall without timing: flushes block on their tables' fsync, so that the writer soon has
                // more frozen memtables than it may; the log line says when it is stalled.
                vfs.hold();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread writer = new Thread(() -> {
                    try {
                        for (int i = 0; i < 2000; i++) {
                            WriteBatch batch = new WriteBatch();
                            batch.put(b("stall" + i), b("x".repeat(200)));
                            kv.write(batch, Durability.NONE);
                        }
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                });
                writer.start();
                String stalled = awaitLine("writes stalled");
                assertThat(stalled).startsWith("INFO").contains("frozen memtables");
                vfs.release();
                writer.join();
                assertThat(failure.get()).as("the stalled writer's failure").isNull();
                assertThat(awaitLine("writes no longer stalled")).contains(" ms");
            }
            recording.stop();
            Path file = tmp.resolve("signals.jfr");
            recording.dump(file);
            events = RecordingFile.readAllEvents(file);
        }
        List<RecordedEvent> flushes = named(events, "dev.lacuna.Flush");
        assertThat(flushes).isNotEmpty().allSatisfy(e -> {
            assertThat(e.getLong("bytes")).isPositive();
            assertThat(e.getLong("entries")).isPositive();
            assertThat(e.getInt("files")).isPositive();
            assertThat(e.getString("store")).isEqualTo(DIR.toString());
            assertThat(FlushReason.valueOf(e.getString("reason"))).isNotNull();
        });
        // The explicit flush, and the memtables the stalled writer filled.
        assertThat(flushes).extracting(e -> e.getString("reason")).contains("EXPLICIT", "MEMTABLE_FULL");
        List<RecordedEvent> compactions = named(events, "dev.lacuna.Compaction");
        assertThat(compactions).isNotEmpty().allSatisfy(e -> {
            assertThat(e.getInt("inputFiles")).isPositive();
            assertThat(e.getLong("inputBytes")).isPositive();
            assertThat(e.getInt("outputLevel")).isGreaterThanOrEqualTo(e.getInt("level"));
        });
        assertThat(compactions).anySatisfy(e -> assertThat(e.getLong("outputBytes")).isPositive());
        List<RecordedEvent> syncs = named(events, "dev.lacuna.LogSync");
        assertThat(syncs).isNotEmpty();
        assertThat(syncs).anySatisfy(e -> {
            assertThat(e.getLong("records")).isPositive();
            assertThat(e.getLong("bytes")).isPositive();
        });
        List<RecordedEvent> stalls = named(events, "dev.lacuna.WriteStall");
        assertThat(stalls).isNotEmpty().allSatisfy(e -> {
            assertThat(e.getString("cause")).isIn("MEMTABLES", "LEVEL0_FILES", "MEMORY");
            assertThat(e.getDuration().toNanos()).isPositive();
        });
    }

    @Test
    void shouldLogTheRecordsReplayedAtOpen() throws Exception {
        MemVfs vfs = new MemVfs();
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            for (int i = 0; i < 37; i++) {
                kv.put(b("k" + i), b("v" + i));
            }
        }
        MemVfs crashed = vfs.crashClone(); // nothing flushed: the reopen replays every write from the log
        lines.clear();
        try (LsmStore kv = LsmStore.open(DIR, options(crashed))) {
            assertThat(kv.get(b("k36"))).isEqualTo(b("v36"));
        }
        String opened = awaitLine("opened in");
        assertThat(opened).startsWith("INFO").contains("replayed 37 log records").contains("log segments: ");
    }

    /** The first captured line containing {@code text}, waiting for it (the stall's comes from the writer). */
    private String awaitLine(String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (line != null && line.contains(text)) {
                return line;
            }
        }
        throw new AssertionError("no log line with '" + text + "'; captured: " + lines);
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).collect(Collectors.toList());
    }
}
