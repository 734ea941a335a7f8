package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Review L3: the open's INFO line counted the log's segments by listing its directory, after recovery was done;
 * a listing that failed then failed the whole open over a log line.
 */
class OpenLogLineTest {
    private static final Path DIR = Path.of("/db");
    private static final Path WAL_DIR = DIR.resolve(Recovery.WAL_DIR);

    // Held strongly while the test runs: java.util.logging keeps loggers weakly.
    private final Logger logger = Logger.getLogger(Recovery.class.getName());
    private Level savedLevel;

    @BeforeEach
    void logAtInfo() {
        savedLevel = logger.getLevel();
        logger.setLevel(Level.INFO); // the line is only made when INFO is logged (the tests log SEVERE only)
    }

    @AfterEach
    void restoreLevel() {
        logger.setLevel(savedLevel);
    }

    /** Lists the log's directory normally until the log has started its new segment, then fails to. */
    private static final class ListingFailsOnceTheLogIsOpen extends ForwardingVfs {
        volatile boolean logOpen;

        ListingFailsOnceTheLogIsOpen(Vfs delegate) {
            super(delegate);
        }

        @Override
        public VfsFile create(Path file) throws IOException {
            VfsFile created = super.create(file);
            if (WAL_DIR.equals(file.getParent()) && file.getFileName().toString().endsWith(".wal")) {
                logOpen = true; // the segment appends go to: recovery is done
            }
            return created;
        }

        @Override
        public List<String> list(Path dir) throws IOException {
            if (logOpen && dir.equals(WAL_DIR)) {
                throw new IOException("injected failure: list " + dir);
            }
            return super.list(dir);
        }
    }

    @Test
    void shouldOpenWhenTheLogDirectoryCannotBeListedForTheOpenLogLine() {
        MemVfs mem = new MemVfs();
        byte[] k = "k".getBytes(StandardCharsets.UTF_8);
        byte[] v = "v".getBytes(StandardCharsets.UTF_8);
        try (LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(mem).build())) {
            kv.put(k, v);
        }
        ListingFailsOnceTheLogIsOpen vfs = new ListingFailsOnceTheLogIsOpen(mem);
        try (LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(vfs).build())) {
            vfs.logOpen = false;
            assertThat(kv.get(k)).isEqualTo(v);
        }
    }
}
