package dev.lacuna.vfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/** The copy behind {@link Vfs#link}'s default: through the file system's own calls, in chunks. */
final class VfsCopy {
    /** Large enough that a copy of a table costs few calls, small enough to sit on any heap. */
    private static final int CHUNK = 1 << 20;

    private VfsCopy() {
    }

    /** Creates {@code to} holding the bytes {@code from} holds now; neither forced nor synced. */
    static void copy(Vfs vfs, Path from, Path to) throws IOException {
        try (VfsFile source = vfs.openReadOnly(from)) {
            long size = source.size();
            try (VfsFile target = vfs.create(to)) {
                ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(CHUNK, Math.max(size, 1)));
                long position = 0;
                while (position < size) {
                    buffer.clear();
                    buffer.limit((int) Math.min(buffer.capacity(), size - position));
                    int n = source.read(buffer, position);
                    if (n < 0) {
                        break; // it shrank meanwhile: copy what there was (callers copy immutable files only)
                    }
                    buffer.flip();
                    target.write(buffer, position);
                    position += n;
                }
            }
        }
    }
}
