package dev.lacuna.manifest;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The manifest: an append-only file of {@link VersionEdit}s, and the {@code CURRENT} file naming the
 * manifest in use. Every edit is fsynced before {@link #append} returns, so the engine may act on it
 * (delete the files it removed) afterwards. A new manifest starts with a snapshot of the whole state and
 * becomes current by write-temp → fsync → rename → fsync(directory), so a crash at any point leaves
 * either the old or the new manifest current, both complete. Layout in FORMAT.md beside this class.
 *
 * <p>Not thread-safe: the engine serialises edits.
 */
public final class Manifest implements AutoCloseable {
    static final long MAGIC = 0x464D414E5543414CL; // "LACUNAMF" read as little-endian
    static final int VERSION = 3;
    /** Version 1 lacks the keyspace tags (10-12), version 2 the log's durable end (13) and the directory mark (14); both read the same. */
    static final int OLDEST_READABLE_VERSION = 1;
    static final int HEADER_SIZE = 16;
    static final int RECORD_HEADER_SIZE = 8;
    /** Bound on one edit, so a damaged length cannot ask for an absurd allocation. */
    static final int MAX_EDIT = 256 << 20;
    /** Name of the file that names the current manifest. */
    public static final String CURRENT = "CURRENT";

    private final long number;
    private final VfsFile file;
    private long size;

    private Manifest(long number, VfsFile file, long size) {
        this.number = number;
        this.file = file;
        this.size = size;
    }

    /** File name of manifest {@code number}. */
    public static String fileName(long number) {
        return String.format("MANIFEST-%06d", number);
    }

    /**
     * What a manifest holds.
     *
     * @param edits   its edits in order
     * @param offsets where each edit's record starts in the file
     * @param file    the manifest's path
     * @param tornAt  the offset of a last edit ignored as cut short by a crash, or -1 if the file ended cleanly
     */
    public record Contents(List<VersionEdit> edits, List<Long> offsets, String file, long tornAt) {
    }

    /**
     * Reads the current manifest of {@code dir}.
     *
     * @return its edits, or null if the directory has no {@code CURRENT} (a new store)
     * @throws CorruptionException if {@code CURRENT} or the manifest is damaged
     */
    public static Contents readCurrent(Vfs vfs, Path dir) throws IOException {
        Path currentPath = dir.resolve(CURRENT);
        if (!vfs.exists(currentPath)) {
            return null;
        }
        String name;
        try (VfsFile current = vfs.openReadOnly(currentPath)) {
            int n = (int) Math.min(current.size(), 64);
            byte[] b = new byte[n];
            current.readFully(0, b, 0, n);
            name = new String(b, StandardCharsets.UTF_8);
        }
        int bad = firstBadByteOfName(name);
        if (bad >= 0) {
            throw new CorruptionException(currentPath.toString(), bad, "CURRENT does not name a manifest: "
                    + name.replaceAll("[^\\x20-\\x7e]", "?"));
        }
        Path manifestPath = dir.resolve(name.substring(0, name.length() - 1));
        try (VfsFile f = vfs.openReadOnly(manifestPath)) {
            return read(f);
        } catch (NoSuchFileException e) {
            throw new CorruptionException(manifestPath.toString(), 0, "the manifest named by CURRENT is missing");
        }
    }

    /**
     * Where {@code content} (of {@code CURRENT}) stops being a manifest's name and its newline — {@code MANIFEST-},
     * six or more digits ({@link #fileName}), {@code \n}, nothing else — or -1 if it is one. Checked before it
     * becomes a path: garbled bytes (a NUL) are no path at all, others could name a file that is not ours.
     */
    private static int firstBadByteOfName(String content) {
        String prefix = "MANIFEST-";
        int i = 0;
        while (i < prefix.length()) {
            if (i >= content.length() || content.charAt(i) != prefix.charAt(i)) {
                return i;
            }
            i++;
        }
        while (i < content.length() && content.charAt(i) >= '0' && content.charAt(i) <= '9' && i < prefix.length() + 19) {
            i++;
        }
        if (i < prefix.length() + 6 || i >= content.length() || content.charAt(i) != '\n') {
            return i;
        }
        return i + 1 == content.length() ? -1 : i + 1;
    }

    /**
     * Reads every edit of one manifest file. A trailing edit cut short by a crash is ignored; damage anywhere
     * else is a {@link CorruptionException}. The two look alike at the bad record (a length past the end, a
     * checksum mismatch, zeros), so the rest of the file decides: a crash tears only the last append, so if
     * well-formed records follow the bad one up to the end of the file, the bad one is damage to an edit that
     * was acknowledged.
     */
    static List<VersionEdit> readEdits(VfsFile f) throws IOException {
        return read(f).edits();
    }

    /**
     * Reads every edit of manifest file {@code f} as an open would ({@link #readEdits}: a torn last edit is
     * ignored and its offset reported in {@link Contents#tornAt()}), with each edit's offset: for tools.
     *
     * @throws CorruptionException naming the file and offset if the manifest is damaged
     */
    public static Contents read(VfsFile f) throws IOException {
        long size = f.size();
        if (size < HEADER_SIZE) {
            throw new CorruptionException(f.name(), 0, "manifest shorter than its header");
        }
        if (size > Integer.MAX_VALUE - 8) {
            throw new CorruptionException(f.name(), 0, "manifest of " + size + " bytes is too large");
        }
        byte[] file = new byte[(int) size];
        f.readFully(0, file, 0, file.length);
        ByteBuffer h = ByteBuffer.wrap(file, 0, HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        if (h.getLong(0) != MAGIC) {
            throw new CorruptionException(f.name(), 0, "manifest: bad magic number");
        }
        if (h.getInt(12) != crc(file, 0, 12)) {
            throw new CorruptionException(f.name(), 12, "manifest: header checksum mismatch");
        }
        if (h.getInt(8) < OLDEST_READABLE_VERSION || h.getInt(8) > VERSION) {
            throw new CorruptionException(f.name(), 8, "manifest: unsupported format version " + h.getInt(8));
        }
        List<VersionEdit> edits = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        int pos = HEADER_SIZE;
        long tornAt = -1;
        while (pos < file.length) {
            int length = wellFormedRecord(file, pos);
            if (length < 0) {
                int next = nextWellFormedRecord(file, pos + 1);
                if (next >= 0) {
                    throw new CorruptionException(f.name(), pos, "manifest: damaged edit (" + damage(file, pos)
                            + ") followed by a well-formed one at offset " + next);
                }
                tornAt = pos;
                break; // torn: the last edit was cut short by a crash, so it was never acknowledged
            }
            byte[] payload = Arrays.copyOfRange(file, pos + RECORD_HEADER_SIZE, pos + RECORD_HEADER_SIZE + length);
            edits.add(VersionEdit.decode(payload, f.name(), pos));
            offsets.add((long) pos);
            pos += RECORD_HEADER_SIZE + length;
        }
        if (edits.isEmpty()) {
            throw new CorruptionException(f.name(), HEADER_SIZE, "manifest holds no snapshot");
        }
        return new Contents(edits, offsets, f.name(), tornAt);
    }

    /** The payload length of the well-formed record at {@code pos} (its length fits, its checksum matches), or -1. */
    private static int wellFormedRecord(byte[] file, int pos) {
        if (file.length - pos < RECORD_HEADER_SIZE) {
            return -1;
        }
        ByteBuffer r = ByteBuffer.wrap(file, pos, RECORD_HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        long length = Integer.toUnsignedLong(r.getInt(pos));
        if (length > MAX_EDIT || length > file.length - pos - RECORD_HEADER_SIZE) {
            return -1;
        }
        CRC32C crc = new CRC32C();
        crc.update(file, pos, 4);
        crc.update(file, pos + RECORD_HEADER_SIZE, (int) length);
        return (int) crc.getValue() == r.getInt(pos + 4) ? (int) length : -1;
    }

    /**
     * The offset of the first record at or after {@code from} that starts a chain of well-formed records
     * ending exactly at the end of the file, each holding an edit that decodes, or -1: what acknowledged edits
     * after a damaged one look like. The chain to the end is what tells them from bytes inside a torn last
     * edit that happen to look like a record (edits carry user keys, which can hold anything): those run into
     * the tear, not to the end — unless the tear falls exactly where such bytes end, which is why they must
     * also decode as an edit (a key that holds a whole well-formed record of a valid edit is not left to chance).
     * Empty records (length 0) do not count: eight bytes match by chance in zeros or garbage too easily.
     */
    private static int nextWellFormedRecord(byte[] file, int from) {
        for (int pos = from; pos + RECORD_HEADER_SIZE <= file.length; pos++) {
            int length = wellFormedRecord(file, pos);
            if (length > 0 && chainsToEnd(file, pos)) {
                return pos;
            }
        }
        return -1;
    }

    private static boolean chainsToEnd(byte[] file, int pos) {
        while (pos < file.length) {
            int length = wellFormedRecord(file, pos);
            if (length <= 0 || !decodes(file, pos, length)) {
                return false;
            }
            pos += RECORD_HEADER_SIZE + length;
        }
        return pos == file.length;
    }

    private static boolean decodes(byte[] file, int pos, int length) {
        try {
            VersionEdit.decode(Arrays.copyOfRange(file, pos + RECORD_HEADER_SIZE, pos + RECORD_HEADER_SIZE + length),
                    "", pos);
            return true;
        } catch (CorruptionException e) {
            return false;
        }
    }

    private static String damage(byte[] file, int pos) {
        if (file.length - pos < RECORD_HEADER_SIZE) {
            return "header cut short";
        }
        long length = Integer.toUnsignedLong(ByteBuffer.wrap(file, pos, 4).order(ByteOrder.LITTLE_ENDIAN).getInt(pos));
        return length > file.length - pos - RECORD_HEADER_SIZE ? "length " + length + " past the end" : "checksum mismatch";
    }

    /**
     * Writes manifest {@code number} holding {@code snapshot} and then each of {@code edits}, fsyncs it and
     * makes it current. The caller deletes the previous manifest afterwards.
     */
    public static Manifest create(Vfs vfs, Path dir, long number, VersionEdit snapshot, VersionEdit... edits)
            throws IOException {
        Path path = dir.resolve(fileName(number));
        if (vfs.exists(path)) {
            vfs.delete(path); // left by a crash before it became current
        }
        VfsFile file = vfs.create(path);
        try {
            byte[] header = new byte[HEADER_SIZE];
            ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
            h.putLong(0, MAGIC).putInt(8, VERSION).putInt(12, crc(header, 0, 12));
            file.write(0, header, 0, HEADER_SIZE);
            Manifest manifest = new Manifest(number, file, HEADER_SIZE);
            manifest.append(snapshot);
            for (VersionEdit edit : edits) {
                manifest.append(edit);
            }
            setCurrent(vfs, dir, fileName(number));
            return manifest;
        } catch (IOException | RuntimeException e) {
            try {
                file.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static void setCurrent(Vfs vfs, Path dir, String manifestName) throws IOException {
        Path tmp = dir.resolve(CURRENT + ".tmp");
        if (vfs.exists(tmp)) {
            vfs.delete(tmp);
        }
        byte[] content = (manifestName + "\n").getBytes(StandardCharsets.UTF_8);
        try (VfsFile f = vfs.create(tmp)) {
            f.write(0, content, 0, content.length);
            f.force();
        }
        vfs.rename(tmp, dir.resolve(CURRENT));
        vfs.syncDirectory(dir);
    }

    /** Appends one edit and fsyncs it. */
    public void append(VersionEdit edit) throws IOException {
        byte[] payload = edit.encode();
        byte[] record = new byte[RECORD_HEADER_SIZE + payload.length];
        ByteBuffer r = ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN);
        r.putInt(0, payload.length);
        System.arraycopy(payload, 0, record, RECORD_HEADER_SIZE, payload.length);
        CRC32C crc = new CRC32C();
        crc.update(record, 0, 4);
        crc.update(payload);
        r.putInt(4, (int) crc.getValue());
        file.write(size, record, 0, record.length);
        file.force();
        size += record.length;
    }

    /** This manifest's number. */
    public long number() {
        return number;
    }

    /** Bytes written so far; the engine starts a new manifest once this grows past a bound. */
    public long size() {
        return size;
    }

    /** Closes the file. */
    @Override
    public void close() throws IOException {
        file.close();
    }

    private static int crc(byte[] b, int off, int len) {
        CRC32C crc = new CRC32C();
        crc.update(b, off, len);
        return (int) crc.getValue();
    }
}
