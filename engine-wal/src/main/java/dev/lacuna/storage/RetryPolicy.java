package dev.lacuna.storage;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.Objects;

/**
 * Which failures of background work (flushes, compactions, index updaters) are retried, and how long to wait
 * between attempts: a bounded exponential backoff, as RocksDB's automatic recovery from a full disk does.
 *
 * <p>A failure is <em>transient</em> when it is an I/O error ({@link IOException}, {@link StorageIOException},
 * {@link UncheckedIOException}) with nothing in its cause chain that says otherwise: a disk that was full may
 * have room again, and the work that failed left nothing half done, so running it again is safe. It is
 * <em>permanent</em> when anything in the chain says that data on disk is wrong ({@link CorruptionException}),
 * that a file the store needs is missing, that the program is wrong (any other {@link RuntimeException}, an
 * {@link Error}), or that the store is closed ({@link DatabaseClosedException}): retrying cannot help, and the
 * component that saw it stops.
 *
 * <p>Immutable and thread-safe.
 *
 * @param initialDelay the wait before the first retry; positive
 * @param maxDelay     the longest wait: each failed attempt doubles the wait up to this; at least
 *                     {@code initialDelay}
 */
public record RetryPolicy(Duration initialDelay, Duration maxDelay) {
    /** How deep {@link #retries} looks into a cause chain (a cycle must not hang it). */
    private static final int MAX_CAUSES = 32;

    /** Checks the delays. */
    public RetryPolicy {
        Objects.requireNonNull(initialDelay, "initialDelay");
        Objects.requireNonNull(maxDelay, "maxDelay");
        if (initialDelay.isNegative() || initialDelay.isZero()) {
            throw new IllegalArgumentException("initialDelay must be positive: " + initialDelay);
        }
        if (maxDelay.compareTo(initialDelay) < 0) {
            throw new IllegalArgumentException("maxDelay " + maxDelay + " is below initialDelay " + initialDelay);
        }
    }

    /** The default: 10 ms before the first retry, doubling up to 1 s. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(Duration.ofMillis(10), Duration.ofSeconds(1));
    }

    /**
     * The wait before retry number {@code attempt} (1 for the first retry): {@code initialDelay} doubled
     * {@code attempt - 1} times, at most {@code maxDelay}.
     */
    public long delayNanos(int attempt) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be at least 1: " + attempt);
        }
        long delay = initialDelay.toNanos();
        long max = maxDelay.toNanos();
        for (int i = 1; i < attempt && delay < max; i++) {
            delay = delay > max / 2 ? max : delay * 2;
        }
        return Math.min(delay, max);
    }

    /** Whether {@code failure} is transient (see the class comment): the work that met it may be retried. */
    public boolean retries(Throwable failure) {
        boolean io = false;
        Throwable t = failure;
        for (int depth = 0; t != null && depth < MAX_CAUSES; depth++, t = t.getCause()) {
            if (t instanceof CorruptionException || t instanceof DatabaseClosedException || t instanceof Error
                    || t instanceof NoSuchFileException || t instanceof FileNotFoundException) {
                return false;
            }
            if (t instanceof IOException || t instanceof StorageIOException || t instanceof UncheckedIOException) {
                io = true;
            } else if (t instanceof RuntimeException) {
                return false; // a programming error, or a refusal that is not about I/O
            }
        }
        return io;
    }
}
