package dev.lacuna.engine;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one index's lag has cost its table's writers ({@link IndexBackPressure}): the time they were held, how
 * many are held now, and why the last one was. Thread-safe; counts from the open.
 */
final class IndexWriteStalls {
    private final LongAdder nanos = new LongAdder();
    private final AtomicInteger held = new AtomicInteger();
    private volatile String cause;

    void started(String why) {
        cause = why;
        held.incrementAndGet();
    }

    void ended(long heldNanos) {
        held.decrementAndGet();
        nanos.add(heldNanos);
    }

    /** Milliseconds writers were held by this index since the open, slowed or stalled. */
    long millis() {
        return nanos.sum() / 1_000_000;
    }

    /** Writers held by this index now. */
    int held() {
        return held.get();
    }

    /** Why a writer was last held, or null if none ever was. */
    String cause() {
        return cause;
    }
}
