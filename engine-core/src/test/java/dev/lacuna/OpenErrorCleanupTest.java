package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * An open that fails with an {@link Error} (an OutOfMemoryError, an assertion of an injected file system) must
 * give back what it took, as one failing with an exception does: the directory lock, the open files. It did not:
 * only IOExceptions and RuntimeExceptions took the 'abandon' path, so the lock stayed held and no later open in the
 * same process could have the directory, even once the fault was gone.
 */
class OpenErrorCleanupTest {
    private static final Path DIR = DatabaseTest.DIR;

    /** Throws an AssertionError from the operations {@link #fault} names, while armed; counts the files open. */
    private static final class FaultyVfs extends ForwardingVfs {
        volatile boolean armed;
        final Map<VfsFile, String> open = new ConcurrentHashMap<>(); // file -> its name
        private final Fault fault;

        interface Fault {
            boolean at(String file, String operation);
        }

        FaultyVfs(Vfs inner, Fault fault) {
            super(inner);
            this.fault = fault;
        }

        private void check(String file, String operation) {
            if (armed && fault.at(file, operation)) {
                throw new AssertionError("injected: " + operation + " of " + file);
            }
        }

        @Override
        protected VfsFile wrap(VfsFile f) {
            VfsFile wrapped = new ForwardingVfs.File(f) {
                @Override
                public int read(ByteBuffer dst, long position) throws IOException {
                    check(name(), "read");
                    return super.read(dst, position);
                }

                @Override
                public long append(ByteBuffer src) throws IOException {
                    check(name(), "append");
                    return super.append(src);
                }

                @Override
                public void write(ByteBuffer src, long position) throws IOException {
                    check(name(), "write");
                    super.write(src, position);
                }

                @Override
                public void close() throws IOException {
                    open.remove(this);
                    super.close();
                }
            };
            open.put(wrapped, f.name());
            return wrapped;
        }
    }

    private static void createDatabase(Vfs vfs) {
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            db.createTable(TableSpec.builder("Items").partitionKey("pk", AttributeValue.Type.S).build());
            db.table("Items").putItem(Item.builder().s("pk", "a").s("v", "1").build());
        }
    }

    /** The directory opens again and holds what it held. */
    private static void assertOpensAgain(Vfs vfs) {
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            assertThat(db.table("Items").getItem(Key.of("pk", AttributeValue.s("a"))).orElseThrow().getString("v"))
                    .isEqualTo("1");
        }
    }

    @Test
    void shouldReleaseTheDirectoryAfterAnErrorReadingTheManifest() {
        FaultyVfs vfs = new FaultyVfs(new MemVfs(),
                (file, op) -> op.equals("read") && Path.of(file).getFileName().toString().startsWith("MANIFEST-"));
        createDatabase(vfs);
        vfs.armed = true;
        assertThatThrownBy(() -> Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build()))
                .isInstanceOf(AssertionError.class).hasMessageContaining("injected: read");
        assertThat(vfs.open.values()).as("files left open by the failed open").isEmpty();
        vfs.armed = false;
        assertOpensAgain(vfs);
    }

    @Test
    void shouldReleaseTheDirectoryAfterAnErrorOpeningTheCatalog() {
        // The item layer's own start (the catalog, after the store's recovery) writes the manifest on a new
        // directory: the Error is thrown there, past the store's open.
        FaultyVfs vfs = new FaultyVfs(new MemVfs(), (file, op) -> StackWalker.getInstance().walk(s -> s.anyMatch(
                f -> f.getClassName().equals("dev.lacuna.engine.Catalog") && f.getMethodName().equals("<init>"))));
        vfs.armed = true;
        assertThatThrownBy(() -> Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build()))
                .isInstanceOf(AssertionError.class).hasMessageContaining("injected");
        assertThat(vfs.open.values()).as("files left open by the failed open").isEmpty();
        vfs.armed = false;
        createDatabase(vfs);
        assertOpensAgain(vfs);
    }
}
