package dev.lacuna.vfs;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The {@link Vfs} contract on the real file system, in a fresh temporary directory per test. */
final class NioVfsContractTest extends VfsContractTest {
    @TempDir
    Path tempDir;

    @Override
    protected Vfs newVfs() {
        return new NioVfs();
    }

    @Override
    protected Path scratchDirectory(Vfs vfs) {
        return tempDir;
    }
}
