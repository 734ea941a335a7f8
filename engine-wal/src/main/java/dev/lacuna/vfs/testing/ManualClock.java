package dev.lacuna.vfs.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock the test moves, for a database's {@code DatabaseOptions.clock}: time to live, stream retention, shard
 * iterator and idempotency-token lifetimes are all read from it. Thread-safe (the engine's background threads
 * read it while the test moves it). For tests of code built on Lacuna that depends on time; Lacuna's own tests
 * use it in every module.
 */
public final class ManualClock extends Clock {
    private volatile Instant now;

    /** A clock standing at {@code start}. */
    public ManualClock(Instant start) {
        now = start;
    }

    /** Moves the clock forward (or back, with a negative duration) by {@code d}. */
    public void advance(Duration d) {
        now = now.plus(d);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }
}
