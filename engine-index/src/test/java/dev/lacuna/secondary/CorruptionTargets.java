package dev.lacuna.secondary;

import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where the corruption-at-rest suite damages a store and how: every file kind, found by reading the files
 * as their FORMAT.md files describe them (the test parses them itself, so a bug in the engine's readers
 * cannot hide a region from the suite), and three kinds of damage — flipped bits, overwritten bytes, a
 * truncated file — applied through the file system and made durable, as bit rot or a lost write at rest
 * would leave them.
 */
final class CorruptionTargets {
    /** A part of one file kind. */
    enum Target {
        /** Records of the last log segment followed by more records. */
        WAL_LAST_MIDDLE,
        /** The last record of the last log segment and what ends it (its seal, or zero fill). */
        WAL_LAST_END,
        /** Records of an earlier (sealed) segment followed by more records. */
        WAL_EARLIER_MIDDLE,
        /** The last record and the seal of an earlier segment. */
        WAL_EARLIER_END,
        /** The 40-byte header of any segment. */
        WAL_HEADER,
        /** An edit of the manifest followed by more edits (its first edit, the snapshot, included). */
        MANIFEST_MIDDLE,
        /** The manifest's last edit. */
        MANIFEST_END,
        /** The length field of one of the manifest's records. */
        MANIFEST_LENGTH,
        /** The manifest's 16-byte header. */
        MANIFEST_HEADER,
        /** A table descriptor (tag 10 of an edit: a table's or an index's keyspace), in the manifest. */
        DESCRIPTOR,
        /** {@code CURRENT} deleted. */
        CURRENT_MISSING,
        /** {@code CURRENT}'s bytes damaged. */
        CURRENT_GARBLED,
        /** {@code CURRENT} naming a manifest the directory does not hold. */
        CURRENT_NAMES_MISSING_MANIFEST,
        /** A data block of an SSTable (payload or trailer). */
        SSTABLE_DATA,
        /** An SSTable's index block. */
        SSTABLE_INDEX,
        /** An SSTable's bloom filter block. */
        SSTABLE_FILTER,
        /** An SSTable's properties block. */
        SSTABLE_PROPERTIES,
        /** An SSTable's 52-byte footer. */
        SSTABLE_FOOTER
    }

    /** What is done to the bytes of the region. */
    enum Damage {
        /** One to three bits flipped (bit rot). */
        BIT_FLIPS,
        /** A run of 1 to 16 bytes overwritten with random bytes or zeros (a garbled or lost sector). */
        OVERWRITE,
        /** The file cut at an offset in the region (a lost write, a file system that lost the tail). */
        TRUNCATE
    }

    /**
     * One corruption, applied.
     *
     * @param file     the damaged file
     * @param from     first byte changed (the cut, for a truncation)
     * @param to       byte after the last one changed (the old size, for a truncation)
     * @param describe what was done, for the report
     */
    record Applied(Target target, Damage damage, Path file, long from, long to, String describe) {
        /** The file's name (the last element of its path): what a refusal must name. */
        String fileName() {
            return file.getFileName().toString();
        }

        @Override
        public String toString() {
            return target + " " + describe;
        }
    }

    static final Path DIR = CampaignWorkload.DIR;
    static final Path WAL = DIR.resolve("wal");
    private static final int WAL_HEADER = 40;
    private static final int FRAGMENT_HEADER = 11;
    private static final int SEAL = 5;
    private static final int MANIFEST_HEADER = 16;
    private static final int FOOTER = 52;
    private static final int TRAILER = 5;

    private CorruptionTargets() {
    }

    /**
     * Damages {@code vfs} (the store at {@link #DIR}) at {@code target} with {@code damage}, at places
     * {@code random} chooses, and makes the damage durable.
     */
    static Applied apply(MemVfs vfs, Target target, Damage damage, Random random) {
        try {
            return switch (target) {
                case CURRENT_MISSING -> {
                    vfs.delete(DIR.resolve("CURRENT"));
                    yield new Applied(target, null, DIR.resolve("CURRENT"), 0, 0, "CURRENT deleted");
                }
                case CURRENT_NAMES_MISSING_MANIFEST -> {
                    Path current = DIR.resolve("CURRENT");
                    byte[] old = vfs.readAll(current);
                    byte[] name = String.format("MANIFEST-%06d\n", 900_000 + random.nextInt(99_999))
                            .getBytes(StandardCharsets.UTF_8);
                    replace(vfs, current, name);
                    yield new Applied(target, null, current, 0, Math.max(old.length, name.length),
                            "CURRENT now names " + new String(name, StandardCharsets.UTF_8).strip());
                }
                default -> {
                    Region region = region(vfs, target, random);
                    yield damage(vfs, target, damage, region, random);
                }
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Bytes {@code [from, to)} of {@code file}: where a damage may go. */
    private record Region(Path file, long from, long to, String what) {
    }

    private static Region region(MemVfs vfs, Target target, Random random) throws IOException {
        return switch (target) {
            case WAL_LAST_MIDDLE, WAL_LAST_END, WAL_EARLIER_MIDDLE, WAL_EARLIER_END, WAL_HEADER -> walRegion(vfs, target, random);
            case MANIFEST_MIDDLE, MANIFEST_END, MANIFEST_LENGTH, MANIFEST_HEADER, DESCRIPTOR -> manifestRegion(vfs, target, random);
            case CURRENT_GARBLED -> new Region(DIR.resolve("CURRENT"), 0, vfs.size(DIR.resolve("CURRENT")), "CURRENT");
            case SSTABLE_DATA, SSTABLE_INDEX, SSTABLE_FILTER, SSTABLE_PROPERTIES, SSTABLE_FOOTER -> tableRegion(vfs, target, random);
            default -> throw new IllegalArgumentException(target.toString());
        };
    }

    // ---- the write-ahead log ----

    /** The log's segments, oldest first. */
    static List<Path> segments(MemVfs vfs) throws IOException {
        List<Path> segments = new ArrayList<>();
        for (String name : vfs.list(WAL)) {
            if (name.endsWith(".wal")) {
                segments.add(WAL.resolve(name));
            }
        }
        segments.sort(null);
        return segments;
    }

    private static Region walRegion(MemVfs vfs, Target target, Random random) throws IOException {
        List<Path> segments = segments(vfs);
        Path file;
        if (target == Target.WAL_HEADER) {
            file = segments.get(random.nextInt(segments.size()));
            return new Region(file, 0, WAL_HEADER, "header");
        }
        boolean last = target == Target.WAL_LAST_MIDDLE || target == Target.WAL_LAST_END;
        if (!last && segments.size() < 2) {
            throw new IllegalStateException("the store has one log segment: no earlier one to damage");
        }
        file = last ? segments.get(segments.size() - 1) : segments.get(random.nextInt(segments.size() - 1));
        byte[] b = vfs.readAll(file);
        int blockSize = ByteBuffer.wrap(b, 12, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        // Walk the fragments (WAL FORMAT.md): where the last record starts, and where the records end.
        int pos = WAL_HEADER;
        int lastRecord = WAL_HEADER;
        while (true) {
            int left = blockSize - pos % blockSize;
            if (left < FRAGMENT_HEADER) {
                pos += left;
                continue;
            }
            if (pos + FRAGMENT_HEADER > b.length) {
                break;
            }
            int length = Short.toUnsignedInt(ByteBuffer.wrap(b, pos + 4, 2).order(ByteOrder.LITTLE_ENDIAN).getShort());
            int type = b[pos + 6];
            if (type == 0) {
                break; // zero fill: the end of the records of a segment still being written
            }
            if (type == 1 || type == 2) {
                lastRecord = pos;
            }
            pos += FRAGMENT_HEADER + length;
            if (type == SEAL) {
                break;
            }
        }
        int end = pos;
        if (target == Target.WAL_LAST_END || target == Target.WAL_EARLIER_END) {
            return new Region(file, lastRecord, Math.max(end, lastRecord + 1), "last record and its end");
        }
        return new Region(file, WAL_HEADER, Math.max(lastRecord, WAL_HEADER + 1), "records before the last");
    }

    // ---- the manifest ----

    /** The manifest {@code CURRENT} names. */
    static Path currentManifest(MemVfs vfs) throws IOException {
        String name = new String(vfs.readAll(DIR.resolve("CURRENT")), StandardCharsets.UTF_8).strip();
        return DIR.resolve(name);
    }

    private static Region manifestRegion(MemVfs vfs, Target target, Random random) throws IOException {
        Path file = currentManifest(vfs);
        byte[] b = vfs.readAll(file);
        if (target == Target.MANIFEST_HEADER) {
            return new Region(file, 0, MANIFEST_HEADER, "header");
        }
        // Records (manifest FORMAT.md): length u32 | crc u32 | edit[length].
        List<int[]> records = new ArrayList<>();
        for (int pos = MANIFEST_HEADER; pos + 8 <= b.length; ) {
            int length = ByteBuffer.wrap(b, pos, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            records.add(new int[] {pos, length});
            pos += 8 + length;
        }
        int n = records.size();
        switch (target) {
            case MANIFEST_END -> {
                int[] r = records.get(n - 1);
                return new Region(file, r[0], r[0] + 8 + r[1], "last of " + n + " edits");
            }
            case MANIFEST_LENGTH -> {
                int i = random.nextInt(n);
                int[] r = records.get(i);
                return new Region(file, r[0], r[0] + 4, "length of edit " + (i + 1) + " of " + n);
            }
            case MANIFEST_MIDDLE -> {
                int i = n == 1 ? 0 : random.nextInt(n - 1);
                int[] r = records.get(i);
                return new Region(file, r[0], r[0] + 8 + r[1], "edit " + (i + 1) + " of " + n);
            }
            default -> {
                // DESCRIPTOR: a keyspace's descriptor holds its table's name (the table's and each index's).
                byte[] name = CampaignWorkload.TABLE.getBytes(StandardCharsets.UTF_8);
                List<int[]> found = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    int[] r = records.get(i);
                    int start = r[0] + 8;
                    for (int p = start; p + name.length <= start + r[1]; p++) {
                        if (Arrays.equals(b, p, p + name.length, name, 0, name.length)) {
                            found.add(new int[] {p, i, start + r[1]});
                        }
                    }
                }
                if (found.isEmpty()) {
                    throw new IllegalStateException("no descriptor in " + file);
                }
                int[] f = found.get(random.nextInt(found.size()));
                // From the descriptor's length prefix (a few bytes before the name) to some way past the name.
                int from = Math.max(records.get(f[1])[0] + 8, f[0] - 6);
                return new Region(file, from, Math.min(f[2], f[0] + 48), "descriptor in edit " + (f[1] + 1) + " of " + n);
            }
        }
    }

    // ---- SSTables ----

    /** The directory's SSTables. */
    static List<Path> tables(MemVfs vfs) throws IOException {
        List<Path> tables = new ArrayList<>();
        for (String name : vfs.list(DIR)) {
            if (name.endsWith(".sst")) {
                tables.add(DIR.resolve(name));
            }
        }
        tables.sort(null);
        return tables;
    }

    /**
     * The keyspace (table or index) an SSTable holds: the first four bytes (big-endian) of its smallest key,
     * read from its properties block (SSTable FORMAT.md: seven varints after the format version, an 8-byte
     * tombstone time, then the smallest key with its length).
     */
    static int keyspaceOf(byte[] table) {
        ByteBuffer f = ByteBuffer.wrap(table).order(ByteOrder.LITTLE_ENDIAN);
        int pos = (int) f.getLong(table.length - FOOTER + 24);
        pos = skipVarint(table, pos);
        for (int i = 0; i < 8; i++) {
            pos = skipVarint(table, pos);
        }
        pos += 8;
        pos = skipVarint(table, pos);
        return ByteBuffer.wrap(table, pos, 4).getInt();
    }

    private static int skipVarint(byte[] b, int pos) {
        while ((b[pos] & 0x80) != 0) {
            pos++;
        }
        return pos + 1;
    }

    private static Region tableRegion(MemVfs vfs, Target target, Random random) throws IOException {
        List<Path> tables = tables(vfs);
        Path file = tables.get(random.nextInt(tables.size()));
        byte[] b = vfs.readAll(file);
        // Footer (SSTable FORMAT.md): index, filter and properties handles (offset u64, size u32), then version,
        // magic and checksum. A block's 5-byte trailer follows its payload.
        ByteBuffer f = ByteBuffer.wrap(b, b.length - FOOTER, FOOTER).order(ByteOrder.LITTLE_ENDIAN);
        int at = b.length - FOOTER;
        long indexOffset = f.getLong(at);
        long indexSize = Integer.toUnsignedLong(f.getInt(at + 8));
        long filterOffset = f.getLong(at + 12);
        long filterSize = Integer.toUnsignedLong(f.getInt(at + 20));
        long propertiesOffset = f.getLong(at + 24);
        long propertiesSize = Integer.toUnsignedLong(f.getInt(at + 32));
        String of = " of a table of keyspace " + keyspaceOf(b);
        return switch (target) {
            case SSTABLE_DATA -> new Region(file, 0, filterOffset, "data blocks" + of);
            case SSTABLE_FILTER -> new Region(file, filterOffset, filterOffset + filterSize + TRAILER, "filter block" + of);
            case SSTABLE_PROPERTIES -> new Region(file, propertiesOffset, propertiesOffset + propertiesSize + TRAILER,
                    "properties block" + of);
            case SSTABLE_INDEX -> new Region(file, indexOffset, indexOffset + indexSize + TRAILER, "index block" + of);
            default -> new Region(file, b.length - FOOTER, b.length, "footer" + of);
        };
    }

    // ---- damage ----

    private static Applied damage(MemVfs vfs, Target target, Damage damage, Region region, Random random)
            throws IOException {
        byte[] b = vfs.readAll(region.file());
        long span = region.to() - region.from();
        String where = region.file().getFileName() + " (" + b.length + " bytes), " + region.what() + " ["
                + region.from() + ", " + region.to() + ")";
        switch (damage) {
            case BIT_FLIPS -> {
                // One bit, or two or three close together (bit rot in one sector); never the same bit twice.
                int bits = random.nextInt(4) == 0 ? 2 + random.nextInt(2) : 1;
                long first = region.from() + (long) (random.nextDouble() * span);
                Set<Long> flipped = new TreeSet<>();
                while (flipped.size() < bits) {
                    long pos = flipped.isEmpty() ? first
                            : Math.min(region.to() - 1, Math.max(region.from(), first + random.nextInt(16) - 8));
                    flipped.add(pos * 8 + random.nextInt(8));
                }
                long lo = Long.MAX_VALUE;
                long hi = -1;
                List<String> names = new ArrayList<>();
                for (long bit : flipped) {
                    int pos = (int) (bit / 8);
                    b[pos] ^= (byte) (1 << (bit % 8));
                    names.add(pos + "." + bit % 8);
                    lo = Math.min(lo, pos);
                    hi = Math.max(hi, pos + 1);
                }
                write(vfs, region.file(), b);
                return new Applied(target, damage, region.file(), lo, hi, "bits " + names + " flipped in " + where);
            }
            case OVERWRITE -> {
                int length = (int) Math.min(span, 1 + random.nextInt(16));
                int pos = (int) (region.from() + (long) (random.nextDouble() * (span - length + 1)));
                byte[] old = Arrays.copyOfRange(b, pos, pos + length);
                boolean zeros = random.nextInt(4) == 0 && !Arrays.equals(old, new byte[length]);
                do {
                    for (int i = 0; i < length; i++) {
                        b[pos + i] = zeros ? 0 : (byte) random.nextInt(256);
                    }
                } while (Arrays.equals(old, 0, length, b, pos, pos + length));
                write(vfs, region.file(), b);
                return new Applied(target, damage, region.file(), pos, pos + length, length + " bytes at " + pos
                        + " overwritten with " + (zeros ? "zeros" : "random bytes") + " in " + where);
            }
            default -> {
                long cut = region.from() + (long) (random.nextDouble() * span);
                try (VfsFile file = vfs.open(region.file())) {
                    file.truncate(cut);
                    file.force();
                }
                return new Applied(target, damage, region.file(), cut, b.length, "cut at " + cut + " in " + where);
            }
        }
    }

    private static void write(MemVfs vfs, Path path, byte[] content) throws IOException {
        try (VfsFile file = vfs.open(path)) {
            file.write(0, content, 0, content.length);
            file.force();
        }
    }

    private static void replace(MemVfs vfs, Path path, byte[] content) throws IOException {
        try (VfsFile file = vfs.open(path)) {
            file.truncate(0);
            file.write(0, content, 0, content.length);
            file.force();
        }
    }
}
