package dev.lacuna.vfs;

import java.io.IOException;
import java.nio.file.Path;

/** The {@link Vfs} contract through a {@link FaultyVfs} with no rules: it must be transparent. */
final class FaultyVfsContractTest extends VfsContractTest {
    @Override
    protected Vfs newVfs() {
        return new FaultyVfs(new MemVfs());
    }

    @Override
    protected Path scratchDirectory(Vfs vfs) throws IOException {
        Path dir = Path.of("/mem/faulty");
        vfs.mkdirs(dir);
        return dir;
    }
}
