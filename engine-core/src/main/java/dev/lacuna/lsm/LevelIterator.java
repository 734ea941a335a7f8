package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import dev.lacuna.manifest.FileMeta;
import java.util.List;

/**
 * Iterates a sorted run of files with disjoint key ranges (a level ≥ 1) as one sequence, opening one
 * table at a time: LevelDB's two-level iterator over a level's file list. It pins only the table it is
 * in, so a long scan of a level holds one reader of the {@link SstableCache}, not the level's.
 */
final class LevelIterator implements InternalIterator {
    private final List<FileMeta> files;
    private final SstableCache tables;
    private final boolean fillCache;
    private int index = -1;
    private InternalIterator table;

    /** An iterator for reads: blocks it loads go into the block cache. */
    LevelIterator(List<FileMeta> files, SstableCache tables) {
        this(files, tables, true);
    }

    /** {@code fillCache} false for compactions, whose reads would only push hot blocks out of the cache. */
    LevelIterator(List<FileMeta> files, SstableCache tables, boolean fillCache) {
        this.files = files;
        this.tables = tables;
        this.fillCache = fillCache;
    }

    @Override
    public boolean valid() {
        return table != null && table.valid();
    }

    @Override
    public void seekToFirst() {
        open(0);
        if (table != null) {
            table.seekToFirst();
        }
        skipForward();
    }

    @Override
    public void seekToLast() {
        open(files.size() - 1);
        if (table != null) {
            table.seekToLast();
        }
        skipBackward();
    }

    @Override
    public void seek(byte[] target) {
        // The first file whose largest key is ≥ target.
        int lo = 0;
        int hi = files.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (InternalKey.compare(files.get(mid).largest(), target) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        open(lo);
        if (table != null) {
            table.seek(target);
        }
        skipForward();
    }

    @Override
    public void seekForPrev(byte[] target) {
        // The last file whose smallest key is ≤ target.
        int lo = 0;
        int hi = files.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (InternalKey.compare(files.get(mid).smallest(), target) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        open(lo - 1);
        if (table != null) {
            table.seekForPrev(target);
        }
        skipBackward();
    }

    @Override
    public void next() {
        table.next();
        skipForward();
    }

    @Override
    public void prev() {
        table.prev();
        skipBackward();
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
        if (table != null) {
            table.close();
            table = null;
        }
        index = -1;
    }

    private void skipForward() {
        while (table != null && !table.valid()) {
            open(index + 1);
            if (table != null) {
                table.seekToFirst();
            }
        }
    }

    private void skipBackward() {
        while (table != null && !table.valid()) {
            open(index - 1);
            if (table != null) {
                table.seekToLast();
            }
        }
    }

    private void open(int i) {
        if (i == index && table != null) {
            return;
        }
        if (table != null) {
            table.close();
            table = null;
        }
        index = i;
        if (i >= 0 && i < files.size()) {
            table = tables.iterator(files.get(i).number(), fillCache);
        }
    }
}
