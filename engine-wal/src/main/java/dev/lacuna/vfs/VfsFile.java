package dev.lacuna.vfs;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * An open file: positional reads and writes, appends, {@link #force()} and truncation. Thread-safe for
 * positional operations; the owner closes it exactly once.
 */
public interface VfsFile extends Closeable {
    /**
     * Reads up to {@code dst.remaining()} bytes starting at {@code position}.
     *
     * @return the number of bytes read, or -1 if {@code position} is at or past the end of the file
     */
    int read(ByteBuffer dst, long position) throws IOException;

    /** Writes all of {@code src} at {@code position}, extending the file if needed. */
    void write(ByteBuffer src, long position) throws IOException;

    /**
     * Writes all of {@code src} at the current end of the file.
     *
     * @return the offset at which the bytes were written
     */
    long append(ByteBuffer src) throws IOException;

    /** Makes every byte written so far durable (fsync of the data and of the file's size). */
    void force() throws IOException;

    /** The current size of the file in bytes. */
    long size() throws IOException;

    /** Cuts the file to {@code size} bytes; does nothing if it is already that short. */
    void truncate(long size) throws IOException;

    /** The path the file was opened under, for messages. */
    String name();

    /**
     * Reads exactly {@code length} bytes at {@code position} into {@code dst[offset..]}.
     *
     * @throws EOFException if the file ends first
     */
    default void readFully(long position, byte[] dst, int offset, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(dst, offset, length);
        while (buffer.hasRemaining()) {
            int n = read(buffer, position + buffer.position() - offset);
            if (n < 0) {
                throw new EOFException("end of " + name() + " at " + (position + buffer.position() - offset)
                        + " while reading " + length + " bytes at " + position);
            }
        }
    }

    /** Writes {@code src[offset..offset+length)} at {@code position}. */
    default void write(long position, byte[] src, int offset, int length) throws IOException {
        write(ByteBuffer.wrap(src, offset, length), position);
    }
}
