package dev.lacuna.vfs;

import java.io.IOException;
import java.nio.file.Path;

/** The {@link Vfs} contract on the in-memory file system. */
final class MemVfsContractTest extends VfsContractTest {
    @Override
    protected Vfs newVfs() {
        return new MemVfs();
    }

    @Override
    protected Path scratchDirectory(Vfs vfs) throws IOException {
        Path dir = Path.of("/mem/contract");
        vfs.mkdirs(dir);
        return dir;
    }
}
