package dev.lacuna.sstable;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalIterator;
import java.util.ArrayList;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/** Drives an iterator and a {@link TreeMap} model through the same random operations and compares. */
final class IteratorChecks {
    private IteratorChecks() {
    }

    /**
     * Runs {@code operations} random seeks, seekForPrevs, seekToFirst/Last, nexts and prevs, checking the
     * iterator's position against the model after each.
     */
    static void randomOperations(Random random, InternalIterator it, TreeMap<byte[], byte[]> model, byte[][] keys,
                                 int partitions, int items, int operations) {
        byte[] expected = null;
        for (int op = 0; op < operations; op++) {
            int roll = random.nextInt(10);
            String what;
            if (roll == 0) {
                it.seekToFirst();
                expected = model.isEmpty() ? null : model.firstKey();
                what = "seekToFirst";
            } else if (roll == 1) {
                it.seekToLast();
                expected = model.isEmpty() ? null : model.lastKey();
                what = "seekToLast";
            } else if (roll <= 3) {
                byte[] target = TestTables.randomTarget(random, keys, partitions, items);
                it.seek(target);
                expected = model.ceilingKey(target);
                what = "seek";
            } else if (roll <= 5) {
                byte[] target = TestTables.randomTarget(random, keys, partitions, items);
                it.seekForPrev(target);
                expected = model.floorKey(target);
                what = "seekForPrev";
            } else if (expected == null) {
                continue;
            } else if (roll <= 7) {
                it.next();
                expected = model.higherKey(expected);
                what = "next";
            } else {
                it.prev();
                expected = model.lowerKey(expected);
                what = "prev";
            }
            if (expected == null) {
                assertThat(it.valid()).as("valid after %s (op %d)", what, op).isFalse();
            } else {
                assertThat(it.valid()).as("valid after %s (op %d)", what, op).isTrue();
                assertThat(it.key()).as("key after %s (op %d)", what, op).isEqualTo(expected);
                assertThat(it.value()).as("value after %s (op %d)", what, op).isEqualTo(model.get(expected));
            }
        }
    }

    /** Asserts that {@code it} yields exactly {@code model} forward and backward. */
    static void fullScans(InternalIterator it, TreeMap<byte[], byte[]> model) {
        assertThat(TestTables.sameEntries(TestTables.forward(it), TestTables.entries(model)))
                .as("forward scan").isTrue();
        assertThat(TestTables.sameEntries(TestTables.backward(it),
                new ArrayList<Map.Entry<byte[], byte[]>>(model.descendingMap().entrySet())))
                .as("backward scan").isTrue();
    }
}
