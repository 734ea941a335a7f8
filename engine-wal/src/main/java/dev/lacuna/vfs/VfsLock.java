package dev.lacuna.vfs;

import java.io.Closeable;
import java.io.IOException;

/** An exclusive lock taken with {@link Vfs#lock}; closing releases it. */
public interface VfsLock extends Closeable {
    /** Releases the lock. Closing twice does nothing. */
    @Override
    void close() throws IOException;
}
