package dev.lacuna.vfs.testing;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * A log segment's handle under {@link BrokenVfs.Breakage#LOG_WRITES_HELD}: the newest writes ({@value #HOLD}) stay
 * in the process until later writes push them out (or a read, a size, a truncate, or the close), and
 * {@link #force()} does not hand them over, as with a user-space buffer flushed too late. Whatever ends the process
 * (a power loss, a {@code kill -9}) loses them, though their fsync was acknowledged.
 */
final class HeldWrites extends ForwardingVfs.File {
    /** Writes kept back: a crash lands among the last few acknowledgements, not just after the newest. */
    static final int HOLD = 8;

    private final VfsFile file;
    private final ArrayDeque<Pending> held = new ArrayDeque<>(); // guarded by this

    private record Pending(byte[] bytes, long position) {
    }

    HeldWrites(VfsFile file) {
        super(file);
        this.file = file;
    }

    @Override
    public synchronized void write(ByteBuffer src, long position) throws IOException {
        byte[] bytes = new byte[src.remaining()];
        src.get(bytes);
        if (position == 0 || allZero(bytes)) {
            // The segment's header, and its preallocation with zeros: a reader of the log (a global index's
            // updater) takes zeros for records not yet written, and fails on a header or file cut short.
            file.write(ByteBuffer.wrap(bytes), position);
            return;
        }
        held.add(new Pending(bytes, position)); // the bug: reported written, still here
        while (held.size() > HOLD) {
            Pending p = held.remove();
            file.write(ByteBuffer.wrap(p.bytes()), p.position());
        }
    }

    @Override
    public synchronized long append(ByteBuffer src) throws IOException {
        release();
        return file.append(src);
    }

    @Override
    public synchronized int read(ByteBuffer dst, long position) throws IOException {
        release();
        return file.read(dst, position);
    }

    @Override
    public synchronized long size() throws IOException {
        release();
        return file.size();
    }

    @Override
    public synchronized void truncate(long size) throws IOException {
        release();
        file.truncate(size);
    }

    @Override
    public void force() throws IOException {
        file.force(); // forces what was handed over; the held writes are not
    }

    @Override
    public synchronized void close() throws IOException {
        try {
            release();
        } finally {
            file.close();
        }
    }

    private static boolean allZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private void release() throws IOException {
        while (!held.isEmpty()) {
            Pending p = held.remove();
            file.write(ByteBuffer.wrap(p.bytes()), p.position());
        }
    }
}
