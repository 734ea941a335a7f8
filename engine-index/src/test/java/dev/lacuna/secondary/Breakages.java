package dev.lacuna.secondary;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import dev.lacuna.vfs.VfsLock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Deliberately broken file systems for {@link CorruptionAtRestTest}'s check that it notices breakage: each
 * makes the engine behave as a recovery with a known bug would, without a test hook in the engine.
 */
final class Breakages {
    private Breakages() {
    }

    /**
     * Deletes the newest SSTable when the open takes the directory's lock: an open that "cleans up" before it
     * has checked the directory (issue 15, item 4).
     */
    static final class DeletesFirst extends ForwardingVfs {
        DeletesFirst(Vfs delegate) {
            super(delegate);
        }

        @Override
        public VfsLock lock(Path lockFile) throws IOException {
            VfsLock lock = super.lock(lockFile);
            Path dir = lockFile.getParent();
            List<String> tables = new ArrayList<>();
            for (String name : list(dir)) {
                if (name.endsWith(".sst")) {
                    tables.add(name);
                }
            }
            tables.sort(null);
            if (!tables.isEmpty()) {
                delete(dir.resolve(tables.get(tables.size() - 1)));
            }
            return lock;
        }
    }

    /**
     * In a directory without {@code CURRENT}, lists neither tables, manifests nor log segments: an open that
     * takes such a directory for a new store without looking at what it holds (issue 15, item 4).
     */
    static final class HidesStoreWithoutCurrent extends ForwardingVfs {
        HidesStoreWithoutCurrent(Vfs delegate) {
            super(delegate);
        }

        @Override
        public List<String> list(Path dir) throws IOException {
            List<String> names = super.list(dir);
            Path store = dir.getFileName().toString().equals("wal") ? dir.getParent() : dir;
            if (exists(store.resolve("CURRENT"))) {
                return names;
            }
            List<String> shown = new ArrayList<>();
            for (String name : names) {
                if (!name.endsWith(".sst") && !name.endsWith(".wal") && !name.startsWith("MANIFEST-")) {
                    shown.add(name);
                }
            }
            return shown;
        }
    }

    /**
     * The manifest is read without its "log durable" fields (tag 13, each record re-checksummed): an open that
     * does not know how far the log was durable when the store closed, as before that field existed, and so
     * takes a cut or garbled end of the last log segment for a torn tail.
     */
    static final class ForgetsLogDurable extends ForwardingVfs {
        ForgetsLogDurable(Vfs delegate) {
            super(delegate);
        }

        @Override
        public VfsFile openReadOnly(Path file) throws IOException {
            VfsFile f = super.openReadOnly(file);
            if (!file.getFileName().toString().startsWith("MANIFEST-")) {
                return f;
            }
            byte[] bytes = new byte[(int) f.size()];
            f.readFully(0, bytes, 0, bytes.length);
            byte[] view = withoutTag13(bytes);
            return new ForwardingVfs.File(f) {
                @Override
                public int read(ByteBuffer dst, long position) {
                    if (position >= view.length) {
                        return -1;
                    }
                    int n = (int) Math.min(dst.remaining(), view.length - position);
                    dst.put(view, (int) position, n);
                    return n;
                }

                @Override
                public long size() {
                    return view.length;
                }
            };
        }

        /** Every record re-encoded without its tag 13 field (manifest FORMAT.md: framing and field layouts). */
        private static byte[] withoutTag13(byte[] b) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            out.write(b, 0, 16);
            int pos = 16;
            while (pos + 8 <= b.length) {
                int length = ByteBuffer.wrap(b, pos, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
                if (length < 0 || pos + 8L + length > b.length) {
                    break; // a torn last record: left as it is
                }
                byte[] edit = strip(Arrays.copyOfRange(b, pos + 8, pos + 8 + length));
                ByteBuffer header = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(edit.length);
                java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
                crc.update(header.array(), 0, 4);
                crc.update(edit);
                header.putInt(4, (int) crc.getValue());
                out.write(header.array(), 0, 8);
                out.write(edit, 0, edit.length);
                pos += 8 + length;
            }
            out.write(b, pos, b.length - pos);
            return out.toByteArray();
        }

        private static byte[] strip(byte[] edit) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            int[] at = {0};
            while (at[0] < edit.length) {
                int start = at[0];
                long tag = varint(edit, at);
                switch ((int) tag) {
                    case 1, 2, 3, 6, 11, 13 -> varint(edit, at);
                    case 4 -> {
                        bytes(edit, at);
                        varint(edit, at);
                    }
                    case 5 -> bytes(edit, at);
                    case 14 -> {
                        varint(edit, at);
                        bytes(edit, at);
                    }
                    case 7, 12 -> {
                        varint(edit, at);
                        varint(edit, at);
                    }
                    case 8 -> {
                        for (int i = 0; i < 4; i++) {
                            varint(edit, at);
                        }
                        bytes(edit, at);
                        bytes(edit, at);
                        for (int i = 0; i < 5; i++) {
                            varint(edit, at);
                        }
                    }
                    case 9 -> {
                        for (int i = 0; i < 3; i++) {
                            varint(edit, at);
                        }
                    }
                    case 10 -> {
                        for (int i = 0; i < 3; i++) {
                            varint(edit, at);
                        }
                        bytes(edit, at);
                    }
                    default -> throw new IllegalStateException("manifest tag " + tag + " not in FORMAT.md");
                }
                if (tag != 13) {
                    out.write(edit, start, at[0] - start);
                }
            }
            return out.toByteArray();
        }

        private static long varint(byte[] b, int[] at) {
            long value = 0;
            for (int shift = 0; ; shift += 7) {
                byte x = b[at[0]++];
                value |= (long) (x & 0x7F) << shift;
                if (x >= 0) {
                    return value;
                }
            }
        }

        private static void bytes(byte[] b, int[] at) {
            int length = (int) varint(b, at); // read first: at[0] moves past the length
            at[0] += length;
        }
    }
}
