package dev.lacuna.vfs.testing;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Asks another process whether a lock file is locked: {@link #heldByAnotherProcess} starts a JVM (this one's
 * {@code java} and class path) running {@link #main}, which tries {@code FileChannel.tryLock} on the file and
 * prints {@code held} (refused) or {@code free} (acquired, then released). Only another process sees whether
 * this one's OS lock is really held: within the JVM, {@code FileChannel} refuses an overlapping lock from its
 * own table whether or not the OS lock still exists. Used by the lock tests of engine-wal and engine-core;
 * crash-testing code can ask the same question.
 */
public final class LockProbe {
    private LockProbe() {
    }

    /** Prints {@code held} or {@code free} for the lock file {@code args[0]} (which must exist). */
    public static void main(String[] args) throws IOException {
        try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                System.out.println("held");
            } else {
                lock.release();
                System.out.println("free");
            }
        }
    }

    /**
     * Whether a child JVM finds {@code lockFile} locked (by this process, or any other).
     *
     * @throws AssertionError if the child does not answer within 60 s or answers something else
     */
    public static boolean heldByAnotherProcess(Path lockFile) throws IOException, InterruptedException {
        Path out = Files.createTempFile("lock-probe", ".out");
        try {
            Process child = new ProcessBuilder(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx32m", "-cp", System.getProperty("java.class.path"), LockProbe.class.getName(),
                    lockFile.toString()))
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!child.waitFor(60, TimeUnit.SECONDS)) {
                child.destroyForcibly();
                throw new AssertionError("the lock probe did not end within 60 s");
            }
            String answer = Files.readString(out, StandardCharsets.UTF_8).strip();
            if (child.exitValue() != 0 || !(answer.equals("held") || answer.equals("free"))) {
                throw new AssertionError("the lock probe exited " + child.exitValue() + ": " + answer);
            }
            return answer.equals("held");
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
