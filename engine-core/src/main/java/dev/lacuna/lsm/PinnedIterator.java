package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;

/**
 * A table's iterator that keeps its reader pinned in the {@link SstableCache} until closed, so the cache
 * never closes the file under it. Closing twice releases once.
 */
final class PinnedIterator implements InternalIterator {
    private final InternalIterator table;
    private SstableCache.Handle pin;

    PinnedIterator(InternalIterator table, SstableCache.Handle pin) {
        this.table = table;
        this.pin = pin;
    }

    @Override
    public boolean valid() {
        return table.valid();
    }

    @Override
    public void seekToFirst() {
        table.seekToFirst();
    }

    @Override
    public void seekToLast() {
        table.seekToLast();
    }

    @Override
    public void seek(byte[] target) {
        table.seek(target);
    }

    @Override
    public void seekForPrev(byte[] target) {
        table.seekForPrev(target);
    }

    @Override
    public void next() {
        table.next();
    }

    @Override
    public void prev() {
        table.prev();
    }

    @Override
    public byte[] key() {
        return table.key();
    }

    @Override
    public byte[] keyBuffer() {
        return table.keyBuffer();
    }

    @Override
    public int keyLength() {
        return table.keyLength();
    }

    @Override
    public byte[] value() {
        return table.value();
    }

    @Override
    public void close() {
        if (pin != null) {
            try {
                table.close();
            } finally {
                pin.release();
                pin = null;
            }
        }
    }
}
