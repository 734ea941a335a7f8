package dev.lacuna.lsm;

import dev.lacuna.manifest.FileMeta;
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

    /** A file moved down a level without rewriting: no overlap below and no deletion to drop. */
    boolean isTrivialMove() {
        return level > 0 && outputLevel == level + 1 && inputs.size() == 1 && nextInputs.isEmpty()
                && inputs.get(0).deletions() == 0;
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
