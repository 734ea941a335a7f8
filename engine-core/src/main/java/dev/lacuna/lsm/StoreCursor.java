package dev.lacuna.lsm;

import dev.lacuna.kv.KvCursor;
import java.lang.ref.Reference;

/**
 * A {@link KvCursor} over the store's user iterator. The {@link CursorReaper} frees the iterator's resources
 * if the cursor is collected without being closed.
 */
final class StoreCursor implements KvCursor {
    private final UserIterator it;
    private final CursorReaper.Registration registration;

    StoreCursor(UserIterator it, CursorReaper reaper) {
        this.it = it;
        this.registration = reaper.watch(this, it);
    }

    @Override
    public boolean valid() {
        try {
            return it.valid();
        } finally {
            Reference.reachabilityFence(this); // not collected (and reaped) while a call runs
        }
    }

    @Override
    public byte[] key() {
        try {
            return it.key();
        } finally {
            Reference.reachabilityFence(this); // not collected (and reaped) while a call runs
        }
    }

    @Override
    public byte[] value() {
        try {
            return it.value();
        } finally {
            Reference.reachabilityFence(this); // not collected (and reaped) while a call runs
        }
    }

    @Override
    public void next() {
        try {
            it.next();
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    @Override
    public long deadEntriesSkipped() {
        try {
            return it.skipped();
        } finally {
            Reference.reachabilityFence(this); // not collected (and reaped) while a call runs
        }
    }

    /** Releases the files the cursor pins. Idempotent. */
    @Override
    public void close() {
        try {
            registration.closed();
            it.close();
        } finally {
            Reference.reachabilityFence(this); // not reaped while the close itself runs
        }
    }
}
