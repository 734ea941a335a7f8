package dev.lacuna.storage;

import java.time.Duration;
import java.util.Objects;

/**
 * When a write is acknowledged relative to its arrival on stable storage.
 *
 * <ul>
 *   <li>{@link #SYNC}: acknowledged only after the log is fsynced. Survives process kill and power loss.
 *       Concurrent writers share one fsync (group commit).</li>
 *   <li>{@link #batched(Duration)}: acknowledged once written to the operating system; fsynced within
 *       the given interval. Survives process kill; power loss may lose up to the interval.</li>
 *   <li>{@link #NONE}: acknowledged once written to the operating system and never fsynced on its own
 *       account. Survives process kill, not power loss.</li>
 * </ul>
 */
public sealed interface Durability {
    /** Fsync before acknowledging. */
    Durability SYNC = new Sync();

    /** Never fsync on this write's account. */
    Durability NONE = new None();

    /** Fsync within {@code maxDelay} of the write; acknowledge without waiting for it. */
    static Durability batched(Duration maxDelay) {
        return new Batched(maxDelay);
    }

    /** See {@link Durability#SYNC}. */
    record Sync() implements Durability {
    }

    /** See {@link Durability#NONE}. */
    record None() implements Durability {
    }

    /**
     * See {@link Durability#batched(Duration)}.
     *
     * @param maxDelay the longest a write may stay unsynced; positive
     */
    record Batched(Duration maxDelay) implements Durability {
        /** Checks that the delay is positive. */
        public Batched {
            Objects.requireNonNull(maxDelay, "maxDelay");
            if (maxDelay.isNegative() || maxDelay.isZero()) {
                throw new IllegalArgumentException("batched durability needs a positive delay: " + maxDelay);
            }
        }
    }
}
