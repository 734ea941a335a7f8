package dev.lacuna.lsm;

import dev.lacuna.base.InternalKey;
import dev.lacuna.manifest.FileMeta;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The SSTables of one tree at one moment: level 0 (files that may overlap, newest first) and levels
 * 1…{@link #LEVELS}-1 (each a sorted run of files with disjoint key ranges). Immutable. Reference-counted:
 * readers {@link #ref()} the version they read, and a file is deleted only when no live version holds it.
 */
final class Version {
    /** Levels per tree. */
    static final int LEVELS = 7;

    private final List<List<FileMeta>> levels;
    private final AtomicInteger refs = new AtomicInteger(1);
    private final Consumer<Version> onRelease;

    Version(List<List<FileMeta>> levels, Consumer<Version> onRelease) {
        List<List<FileMeta>> copy = new ArrayList<>(LEVELS);
        for (List<FileMeta> level : levels) {
            copy.add(List.copyOf(level));
        }
        this.levels = Collections.unmodifiableList(copy);
        this.onRelease = onRelease;
    }

    static Version empty(Consumer<Version> onRelease) {
        List<List<FileMeta>> levels = new ArrayList<>();
        for (int i = 0; i < LEVELS; i++) {
            levels.add(List.of());
        }
        return new Version(levels, onRelease);
    }

    /** Files of {@code level}: newest first for level 0, by key for the others. */
    List<FileMeta> files(int level) {
        return levels.get(level);
    }

    List<List<FileMeta>> levels() {
        return levels;
    }

    long levelBytes(int level) {
        long total = 0;
        for (FileMeta f : levels.get(level)) {
            total += f.size();
        }
        return total;
    }

    /** Deepest level holding a file, or -1 if the tree has no file. */
    int deepestNonEmptyLevel() {
        for (int level = LEVELS - 1; level >= 0; level--) {
            if (!levels.get(level).isEmpty()) {
                return level;
            }
        }
        return -1;
    }

    /** Files of {@code level} whose user-key range meets {@code [smallest, largest]} (user keys; null = open). */
    List<FileMeta> overlapping(int level, byte[] smallest, byte[] largest) {
        List<FileMeta> out = new ArrayList<>();
        for (FileMeta f : levels.get(level)) {
            if ((largest == null || InternalKey.compareUserKey(f.smallest(), largest) <= 0)
                    && (smallest == null || InternalKey.compareUserKey(f.largest(), smallest) >= 0)) {
                out.add(f);
            }
        }
        return out;
    }

    /** Whether some file below {@code level} may hold {@code userKey}, judged by key ranges. */
    boolean mayHoldBelow(int level, byte[] userKey) {
        for (int l = level + 1; l < LEVELS; l++) {
            for (FileMeta f : levels.get(l)) {
                if (InternalKey.compareUserKey(f.smallest(), userKey) <= 0
                        && InternalKey.compareUserKey(f.largest(), userKey) >= 0) {
                    return true;
                }
            }
        }
        return false;
    }

    void ref() {
        refs.incrementAndGet();
    }

    void unref() {
        int left = refs.decrementAndGet();
        if (left == 0) {
            onRelease.accept(this);
        } else if (left < 0) {
            throw new IllegalStateException("version released twice");
        }
    }
}
