package dev.lacuna.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A manifest read tells a torn last edit (a crash during its append: ignored, it was never acknowledged)
 * from damage to an acknowledged edit (refused with file and offset), whatever the damage looks like at
 * the bad record — a length past the end, a checksum mismatch, zeros.
 */
class ManifestDamageTest {
    private static final Path DIR = Path.of("/db");
    private static final int EDITS = 5;

    @Test
    void shouldRefuseEverySingleBitFlipBeforeTheLastEdit() throws IOException {
        MemVfs vfs = new MemVfs();
        byte[] clean = write(vfs);
        List<Integer> offsets = recordOffsets(vfs, clean);
        int lastRecord = offsets.get(offsets.size() - 1);
        int flips = 0;
        int refused = 0;
        int silentlyShort = 0;
        for (int bit = Manifest.HEADER_SIZE * 8; bit < lastRecord * 8; bit++) {
            byte[] damaged = clean.clone();
            damaged[bit / 8] ^= (byte) (1 << (bit % 8));
            flips++;
            try {
                List<VersionEdit> edits = read(vfs, damaged);
                if (edits.size() < EDITS + 1) {
                    silentlyShort++;
                }
            } catch (CorruptionException e) {
                assertThat(e.getMessage()).contains("MANIFEST-");
                refused++;
            }
        }
        System.out.println("manifest bit flips before the last edit: " + flips + ", refused: " + refused
                + ", silently dropped edits: " + silentlyShort);
        assertThat(silentlyShort).as("flips that silently dropped acknowledged edits").isZero();
        assertThat(refused).isEqualTo(flips);
    }

    /**
     * Every single-bit flip of the header (magic, format version, header checksum) is refused at the header. Some
     * flips of the version give another readable version (3 to 1 or 2): only the header checksum catches those, and
     * mutation testing found it unchecked (the flips above start after the header), a constant checksum passing.
     */
    @Test
    void shouldRefuseEverySingleBitFlipOfTheHeaderAtTheHeader() throws IOException {
        MemVfs vfs = new MemVfs();
        byte[] clean = write(vfs);
        int refused = 0;
        for (int bit = 0; bit < Manifest.HEADER_SIZE * 8; bit++) {
            byte[] damaged = clean.clone();
            damaged[bit / 8] ^= (byte) (1 << (bit % 8));
            int flipped = bit;
            assertThatThrownBy(() -> read(vfs, damaged)).as("bit %d of the header", flipped)
                    .isInstanceOfSatisfying(CorruptionException.class,
                            e -> assertThat(e.offset()).as("bit %d of the header", flipped).isLessThan(Manifest.HEADER_SIZE));
            refused++;
        }
        assertThat(refused).isEqualTo(Manifest.HEADER_SIZE * 8);
    }

    @Test
    void shouldIgnoreALastEditCutShortOrZeroedByACrash() throws IOException {
        MemVfs vfs = new MemVfs();
        byte[] clean = write(vfs);
        int lastRecord = recordOffsets(vfs, clean).get(EDITS);
        for (int cut = lastRecord; cut < clean.length; cut++) {
            byte[] torn = java.util.Arrays.copyOf(clean, cut);
            assertThat(read(vfs, torn)).as("cut at %d", cut).hasSize(EDITS);
            byte[] zeroed = clean.clone();
            java.util.Arrays.fill(zeroed, cut, clean.length, (byte) 0); // size updated, data never written
            assertThat(read(vfs, zeroed)).as("zeros from %d", cut).hasSize(EDITS);
        }
    }

    /**
     * An edit holds user keys, which may hold the bytes of a well-formed record; a crash that tears the edit's
     * append exactly where such bytes end leaves "a record chaining to the end of the file" after a bad one.
     * Unless it also decodes as an edit, it is part of the torn edit, not evidence of damage. Every cut inside
     * the last edit must read as a torn tail (the store once refused two of 200 power-loss images of
     * ManifestTornEmbeddedRecordTest, whose tears landed there after an edit grew by a field).
     */
    @Test
    void shouldIgnoreALastEditTornRightAfterRecordLikeBytesInAKey() throws IOException {
        MemVfs vfs = new MemVfs();
        vfs.mkdirs(DIR);
        byte[] key = java.nio.ByteBuffer.allocate(21).order(java.nio.ByteOrder.LITTLE_ENDIAN).put((byte) 'k')
                .putInt(4).putInt(0).put(new byte[] {'e', 'v', 'i', 'l'}).putLong(0).array();
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(key, 1, 4);
        crc.update(key, 9, 4);
        java.nio.ByteBuffer.wrap(key).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(5, (int) crc.getValue());
        try (Manifest m = Manifest.create(vfs, DIR, 1, new VersionEdit().treeCount(1).nextFileNumber(2))) {
            m.append(new VersionEdit().addFile(0, 0, new FileMeta(7, 100, key, key, 1, 1, 1, 0, Long.MAX_VALUE)));
        }
        byte[] clean = vfs.readAll(DIR.resolve(Manifest.fileName(1)));
        int last = recordOffsets(vfs, clean).get(1);
        for (int cut = last; cut < clean.length; cut++) {
            assertThat(read(vfs, java.util.Arrays.copyOf(clean, cut))).as("cut at %d", cut).hasSize(1);
        }
    }

    /**
     * {@code CURRENT} garbled into a name that is no manifest's — NUL bytes that no path may hold, other
     * characters, a missing newline — is refused naming {@code CURRENT} and the first bad byte: the
     * corruption-at-rest suite found NULs escaping as {@code java.nio.file.InvalidPathException}.
     */
    @Test
    void shouldRefuseACurrentThatNamesNoManifestNamingItAndTheBadByte() throws IOException {
        MemVfs vfs = new MemVfs();
        write(vfs);
        String[] garbled = {"MANIFEST-0\0\0\0\0\01\n", "MANIFEST-000001", "MANIFEST-00/001\n", "MANIFEST-0000x1\n",
                "MANIFEST-000001\nMANIFEST-000002\n", "MANIFEST-\n"};
        int[] bad = {10, 15, 11, 13, 16, 9};
        for (int i = 0; i < garbled.length; i++) {
            try (VfsFile f = vfs.open(DIR.resolve(Manifest.CURRENT))) {
                byte[] b = garbled[i].getBytes(java.nio.charset.StandardCharsets.UTF_8);
                f.truncate(0);
                f.write(0, b, 0, b.length);
            }
            assertThatThrownBy(() -> Manifest.readCurrent(vfs, DIR)).as(garbled[i])
                    .isInstanceOf(CorruptionException.class).hasMessageContaining("CURRENT does not name a manifest")
                    .hasMessageContaining("(file /db/CURRENT, offset " + bad[i] + ")");
        }
    }

    @Test
    void shouldNameTheFileAndOffsetOfADamagedLength() throws IOException {
        MemVfs vfs = new MemVfs();
        byte[] clean = write(vfs);
        int second = recordOffsets(vfs, clean).get(1);
        byte[] damaged = clean.clone();
        damaged[second + 3] ^= 0x40; // the length's top byte: the edit now "runs past the end"
        assertThatThrownBy(() -> read(vfs, damaged)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("MANIFEST-000001").hasMessageContaining(String.valueOf(second));
    }

    /** A manifest of a snapshot and five edits; its bytes. */
    private static byte[] write(MemVfs vfs) throws IOException {
        vfs.mkdirs(DIR);
        try (Manifest m = Manifest.create(vfs, DIR, 1, new VersionEdit().treeCount(1).nextFileNumber(2))) {
            for (int i = 1; i <= EDITS; i++) {
                m.append(new VersionEdit().flushedLsn(0, 10L * i).checkpoint("index-" + i, i));
            }
        }
        try (VfsFile f = vfs.openReadOnly(DIR.resolve(Manifest.fileName(1)))) {
            byte[] b = new byte[(int) f.size()];
            f.readFully(0, b, 0, b.length);
            return b;
        }
    }

    private static List<VersionEdit> read(MemVfs vfs, byte[] bytes) throws IOException {
        Path p = DIR.resolve(Manifest.fileName(1));
        vfs.delete(p);
        try (VfsFile f = vfs.create(p)) {
            f.write(0, bytes, 0, bytes.length);
        }
        try (VfsFile f = vfs.openReadOnly(p)) {
            return Manifest.readEdits(f);
        }
    }

    /** The offset of each record (the snapshot first), from the record lengths. */
    private static List<Integer> recordOffsets(MemVfs vfs, byte[] bytes) {
        List<Integer> out = new ArrayList<>();
        int pos = Manifest.HEADER_SIZE;
        while (pos < bytes.length) {
            out.add(pos);
            int length = (bytes[pos] & 0xFF) | (bytes[pos + 1] & 0xFF) << 8 | (bytes[pos + 2] & 0xFF) << 16
                    | (bytes[pos + 3] & 0xFF) << 24;
            pos += Manifest.RECORD_HEADER_SIZE + length;
        }
        return out;
    }
}
