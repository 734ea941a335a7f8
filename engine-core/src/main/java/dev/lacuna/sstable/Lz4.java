package dev.lacuna.sstable;

import java.lang.reflect.Method;
import java.util.Objects;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * The LZ4 implementation a store compresses and decompresses its table blocks with, chosen once per store
 * ({@link #fastest()}) and handed to its {@link SstableWriter}s and {@link SstableReader}s. Both
 * implementations write the same LZ4 block format, so a table written by one is read by the other.
 *
 * <p>lz4-java (the at.yawk fork) offers two loadable implementations: JNI (the C library, extracted from its
 * jar to the temporary directory and loaded) and pure Java; its "unsafe" instance is the pure-Java one in
 * this fork. {@code Lz4Benchmark} measured JNI faster on 4 KiB table blocks, so {@link #fastest()} takes it
 * where it loads without flags and without a warning: on JDK 24 and later, {@code System.loadLibrary} from a
 * module without native access enabled prints a "restricted method" warning (JEP 472), and embedding Lacuna
 * must not make the application print that, so there JNI is used only when the user enabled native access
 * for lz4-java's module ({@code --enable-native-access=ALL-UNNAMED} or {@code org.lz4.java}). Anywhere else,
 * and when the library fails to load, the pure-Java implementation is used; the choice is logged at DEBUG.
 *
 * <p>Immutable and thread-safe; the compressors and decompressors it hands out are thread-safe too.
 */
public final class Lz4 {
    private static final System.Logger LOG = System.getLogger(Lz4.class.getName());
    /** The first release whose {@code System.loadLibrary} warns without native access (JEP 472). */
    private static final int FIRST_WARNING_RELEASE = 24;

    private final LZ4Factory factory;
    private final LZ4Compressor compressor;
    private final LZ4SafeDecompressor decompressor;
    private final boolean isNative;

    private Lz4(LZ4Factory factory, boolean isNative) {
        this.factory = factory;
        this.isNative = isNative;
        this.compressor = factory.fastCompressor();
        this.decompressor = factory.safeDecompressor();
    }

    /** The pure-Java implementation: always loads, never touches native code. */
    public static Lz4 pureJava() {
        return new Lz4(LZ4Factory.safeInstance(), false);
    }

    /**
     * The JNI implementation whether or not loading it warns: for benchmarks that compare the two.
     *
     * @throws UnsupportedOperationException if the library does not load
     */
    public static Lz4 jni() {
        try {
            return new Lz4(LZ4Factory.nativeInstance(), true);
        } catch (LinkageError | RuntimeException | AssertionError e) {
            throw new UnsupportedOperationException("lz4-java's JNI library did not load", e);
        }
    }

    /**
     * The JNI implementation where it loads silently (see the class comment), otherwise the pure-Java one.
     * lz4-java loads its library once per class loader, so calling this again is cheap.
     */
    public static Lz4 fastest() {
        return fastest(Runtime.version().feature(), nativeAccessEnabled(LZ4Factory.class.getModule()));
    }

    /** {@link #fastest()} for a given release and native-access state: separate so a test can ask for both. */
    static Lz4 fastest(int release, boolean nativeAccessEnabled) {
        if (release >= FIRST_WARNING_RELEASE && !nativeAccessEnabled) {
            LOG.log(System.Logger.Level.DEBUG, "LZ4: pure Java (native access is not enabled for lz4-java's module,"
                    + " so loading its JNI library would print a warning on JDK {0})", release);
            return pureJava();
        }
        try {
            Lz4 jni = new Lz4(LZ4Factory.nativeInstance(), true);
            LOG.log(System.Logger.Level.DEBUG, "LZ4: JNI");
            return jni;
        } catch (LinkageError | RuntimeException | AssertionError e) {
            // lz4-java reports a library that would not extract or load as an UnsatisfiedLinkError, or wrapped.
            LOG.log(System.Logger.Level.DEBUG, "LZ4: pure Java (the JNI library did not load)", e);
            return pureJava();
        }
    }

    /** {@code module.isNativeAccessEnabled()} where the JDK has it (22 and later), otherwise false. */
    private static boolean nativeAccessEnabled(Module module) {
        try {
            Method method = Module.class.getMethod("isNativeAccessEnabled");
            return (Boolean) method.invoke(module);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false; // before JDK 22, where loading a library never warns
        }
    }

    /** True if this is the JNI implementation. */
    public boolean isNative() {
        return isNative;
    }

    LZ4Compressor compressor() {
        return compressor;
    }

    LZ4SafeDecompressor decompressor() {
        return decompressor;
    }

    @Override
    public String toString() {
        return Objects.toString(factory);
    }
}
