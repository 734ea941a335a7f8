package dev.lacuna.sstable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.vfs.MemVfs;
import java.io.IOException;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The store's choice of LZ4 implementation, and tables written by one implementation read by the other. */
class Lz4CompressionTest {
    @Test
    void shouldReadWithEitherImplementationWhatTheOtherWrote() throws IOException {
        Lz4 jni = Lz4.fastest(17, false);
        assumeTrue(jni.isNative(), "lz4-java's JNI library does not load on this platform");
        Lz4 java = Lz4.pureJava();
        TreeMap<byte[], byte[]> model = TestTables.randomEntries(new Random(13), 3000, 7, 300);
        SstableOptions options = SstableOptions.defaults().withKeyPrefix(TestTables.PARTITION);
        MemVfs vfs = new MemVfs();
        SstableProperties byJni = TestTables.write(vfs, "jni.sst", model, options, 0, jni);
        SstableProperties byJava = TestTables.write(vfs, "java.sst", model, options, 0, java);
        // Half of the values are runs of one letter, so the blocks really are compressed.
        assertThat(byJni.dataSize()).isLessThan(byJni.rawKeySize() + byJni.rawValueSize());
        assertThat(byJava.dataSize()).isLessThan(byJava.rawKeySize() + byJava.rawValueSize());
        for (String name : List.of("jni.sst", "java.sst")) {
            for (Lz4 reader : List.of(jni, java)) {
                try (SstableReader r = TestTables.open(vfs, name, 1, new BlockCache(0), reader);
                     InternalIterator it = r.iterator()) {
                    assertThat(TestTables.sameEntries(TestTables.forward(it), TestTables.entries(model)))
                            .as("%s read by %s", name, reader).isTrue();
                }
            }
        }
    }

    @Test
    void shouldNotLoadTheNativeLibraryWhereItWouldWarnWithoutNativeAccess() {
        // JDK 24 and later print a warning for System.loadLibrary unless native access is enabled (JEP 472).
        assertThat(Lz4.fastest(24, false).isNative()).isFalse();
        assertThat(Lz4.fastest(25, false).isNative()).isFalse();
    }

    @Test
    void shouldUseTheNativeLibraryWhereItLoadsSilently() {
        Lz4 before24 = Lz4.fastest(17, false);
        Lz4 enabled = Lz4.fastest(25, true);
        assumeTrue(before24.isNative(), "lz4-java's JNI library does not load on this platform");
        assertThat(enabled.isNative()).isTrue();
        assertThat(Lz4.pureJava().isNative()).isFalse();
    }
}
