package dev.lacuna.lsm;

import dev.lacuna.base.InternalKey;
import dev.lacuna.manifest.FileMeta;
import java.util.ArrayList;
import java.util.List;

/**
 * One compaction of one tree: {@code inputs} from {@code level} merged with the overlapping
 * {@code nextInputs} of {@code outputLevel}. When {@code outputLevel == level} it is a rewrite of files at
 * the bottom of the tree, done to drop their deletions.
 *
 * @param reason what triggered it (for statistics and tests)
 */
record Compaction(int tree, int level, int outputLevel, List<FileMeta> inputs, List<FileMeta> nextInputs,
                  Reason reason) {
    /** Why a compaction was chosen. */
    enum Reason { LEVEL0_FILES, LEVEL_SIZE, TOMBSTONE_DENSITY, TOMBSTONE_AGE, MANUAL }

    /**
     * Files moved down a level without rewriting: nothing overlaps them below, they hold no deletion to
     * drop, and (level-0 files may overlap one another) none overlaps another input.
     */
    boolean isTrivialMove() {
        if (outputLevel != level + 1 || !nextInputs.isEmpty()) {
            return false;
        }
        List<FileMeta> byKey = new ArrayList<>(inputs);
        byKey.sort((a, b) -> InternalKey.compare(a.smallest(), b.smallest()));
        for (int i = 0; i < byKey.size(); i++) {
            if (byKey.get(i).deletions() > 0) {
                return false;
            }
            if (i > 0 && InternalKey.compareUserKeys(byKey.get(i - 1).largest(), byKey.get(i).smallest()) >= 0) {
                return false;
            }
        }
        return true;
    }

    long inputBytes() {
        long total = 0;
        for (FileMeta f : inputs) {
            total += f.size();
        }
        for (FileMeta f : nextInputs) {
            total += f.size();
        }
        return total;
    }
}
