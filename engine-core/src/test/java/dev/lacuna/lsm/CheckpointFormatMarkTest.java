package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.manifest.Manifest;
import dev.lacuna.manifest.VersionEdit;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A format 1 store is marked with the current format only before its first version 2 record (see
 * FailedOpenKeepsFormatTest). A checkpoint takes the state, mark included, before it copies the log: a first write
 * between the two must not leave a copy whose log holds a version 2 record under a format 1 mark.
 */
class CheckpointFormatMarkTest {
    private static final Path DIR = Path.of("/db");
    private static final Path COPY = Path.of("/copy");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Runs {@link #armed} (once) when the copy's log directory is made: after the state is taken, before the log is copied. */
    private static final class HookVfs extends ForwardingVfs {
        volatile Runnable armed;

        HookVfs(MemVfs delegate) {
            super(delegate);
        }

        @Override
        public void mkdirs(Path dir) throws IOException {
            Runnable hook = armed;
            if (hook != null && dir.equals(COPY.resolve(Recovery.WAL_DIR))) {
                armed = null;
                hook.run();
            }
            super.mkdirs(dir);
        }
    }

    @Test
    void shouldMarkACheckpointWithTheFormatOfTheLogItCopies() throws Exception {
        MemVfs mem = new MemVfs();
        KvOptions options = KvOptions.builder().vfs(mem).build();
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            kv.put(b("k"), b("v"));
        }
        FailedOpenKeepsFormatTest.markFormat1(mem, options.partitions(), LsmStore.OWNER_KV);
        HookVfs vfs = new HookVfs(mem);
        try (LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(vfs).build())) {
            // The store's first write since the open: its version 2 record comes after the state was taken.
            vfs.armed = () -> kv.write(new WriteBatch().put(b("k2"), b("v2")), Durability.NONE);
            kv.checkpoint(COPY);
            assertThat(vfs.armed).as("the write ran inside the checkpoint").isNull();
        }
        assertThat(storedFormat(mem, COPY)).as("the mark of a copy whose log holds a version 2 record")
                .isEqualTo(VersionSet.STORE_FORMAT);
        try (LsmStore copy = LsmStore.open(COPY, KvOptions.builder().vfs(mem).build())) {
            assertThat(copy.get(b("k2"))).as("the copy holds the write").isEqualTo(b("v2"));
        }
    }

    private static int storedFormat(MemVfs vfs, Path dir) throws Exception {
        Integer format = null;
        for (VersionEdit e : Manifest.readCurrent(vfs, dir).edits()) {
            if (e.storeFormat() != null) {
                format = e.storeFormat();
            }
        }
        assertThat(format).as("a directory format mark").isNotNull();
        return format;
    }
}
