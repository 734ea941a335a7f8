package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The merging iterator compares its children's keys in their own buffers ({@link InternalIterator#keyBuffer()}),
 * which a child rewrites whenever it moves. Its children here rewrite theirs the way a block iterator does, and
 * scribble over the rest of it too, so a heap that compared a key read before its child moved, or that handed
 * out a child's buffer as a key to keep, would merge out of order or return changed keys. Random seeks, steps and
 * changes of direction are checked against a sorted model.
 */
class MergingIteratorKeyBufferTest {
    private static final int CHILDREN = 4;

    @Test
    void shouldMergeInOrderAndHandOutStableKeysWhileChildrenRewriteTheirBuffers() {
        Random random = new Random(42);
        for (int round = 0; round < 20; round++) {
            TreeMap<byte[], byte[]> model = new TreeMap<>(InternalKey.COMPARATOR);
            List<TreeMap<byte[], byte[]>> parts = new ArrayList<>();
            for (int i = 0; i < CHILDREN; i++) {
                parts.add(new TreeMap<>(InternalKey.COMPARATOR));
            }
            long sequence = 1;
            for (int i = 0; i < 200; i++) {
                // Keys of 1 to 100 bytes sharing prefixes, several versions of some, each entry in one child.
                String user = "k" + "x".repeat(random.nextInt(90)) + random.nextInt(60);
                byte[] key = InternalKey.encode(user.getBytes(StandardCharsets.US_ASCII), sequence++, InternalKey.KIND_PUT);
                byte[] value = ("v" + i).getBytes(StandardCharsets.US_ASCII);
                model.put(key, value);
                parts.get(random.nextInt(CHILDREN)).put(key, value);
            }
            List<InternalIterator> children = new ArrayList<>();
            for (TreeMap<byte[], byte[]> part : parts) {
                children.add(new RewritingIterator(part));
            }
            try (MergingIterator merged = new MergingIterator(children)) {
                checkRandomOperations(random, merged, model);
                checkFullScans(merged, model);
            }
        }
    }

    private static void checkRandomOperations(Random random, MergingIterator it, TreeMap<byte[], byte[]> model) {
        byte[][] keys = model.keySet().toArray(new byte[0][]);
        List<byte[]> kept = new ArrayList<>();
        List<byte[]> copies = new ArrayList<>();
        byte[] expected = null;
        for (int op = 0; op < 2000; op++) {
            int roll = random.nextInt(8);
            byte[] target = keys[random.nextInt(keys.length)];
            if (roll == 0) {
                it.seek(target);
                expected = model.ceilingKey(target);
            } else if (roll == 1) {
                it.seekForPrev(target);
                expected = model.floorKey(target);
            } else if (expected == null) {
                it.seekToFirst();
                expected = model.firstKey();
            } else if (roll <= 4) {
                it.next();
                expected = model.higherKey(expected);
            } else {
                it.prev();
                expected = model.lowerKey(expected);
            }
            assertThat(it.valid()).as("valid after op %d", op).isEqualTo(expected != null);
            if (expected != null) {
                byte[] key = it.key();
                assertThat(key).as("key after op %d", op).isEqualTo(expected);
                assertThat(Arrays.copyOf(it.keyBuffer(), it.keyLength())).as("key in place after op %d", op)
                        .isEqualTo(expected);
                assertThat(it.value()).as("value after op %d", op).isEqualTo(model.get(expected));
                kept.add(key);
                copies.add(key.clone());
            }
        }
        for (int i = 0; i < kept.size(); i++) {
            assertThat(kept.get(i)).as("key %d kept while the iterator moved on", i).isEqualTo(copies.get(i));
        }
    }

    private static void checkFullScans(MergingIterator it, TreeMap<byte[], byte[]> model) {
        List<byte[]> forward = new ArrayList<>();
        for (it.seekToFirst(); it.valid(); it.next()) {
            forward.add(it.key());
        }
        assertThat(forward).containsExactlyElementsOf(model.keySet());
        List<byte[]> backward = new ArrayList<>();
        for (it.seekToLast(); it.valid(); it.prev()) {
            backward.add(it.key());
        }
        assertThat(backward).containsExactlyElementsOf(model.descendingKeySet());
    }

    /**
     * Iterates a sorted map, holding the current key in one buffer that every move rewrites whole (garbage past
     * the key) and sometimes replaces with a larger one, as a block iterator's buffer grows.
     */
    private static final class RewritingIterator implements InternalIterator {
        private final TreeMap<byte[], byte[]> entries;
        private Map.Entry<byte[], byte[]> current;
        private byte[] buffer = new byte[16];
        private byte scribble;

        RewritingIterator(TreeMap<byte[], byte[]> entries) {
            this.entries = entries;
        }

        private void moveTo(Map.Entry<byte[], byte[]> e) {
            current = e;
            if (e == null) {
                Arrays.fill(buffer, scribble++);
                return;
            }
            byte[] key = e.getKey();
            if (buffer.length < key.length) {
                buffer = new byte[key.length + 7];
            }
            Arrays.fill(buffer, scribble++);
            System.arraycopy(key, 0, buffer, 0, key.length);
        }

        @Override
        public boolean valid() {
            return current != null;
        }

        @Override
        public void seekToFirst() {
            moveTo(entries.firstEntry());
        }

        @Override
        public void seekToLast() {
            moveTo(entries.lastEntry());
        }

        @Override
        public void seek(byte[] target) {
            moveTo(entries.ceilingEntry(target));
        }

        @Override
        public void seekForPrev(byte[] target) {
            moveTo(entries.floorEntry(target));
        }

        @Override
        public void next() {
            moveTo(entries.higherEntry(current.getKey()));
        }

        @Override
        public void prev() {
            moveTo(entries.lowerEntry(current.getKey()));
        }

        @Override
        public byte[] key() {
            return current.getKey().clone();
        }

        @Override
        public byte[] keyBuffer() {
            return buffer;
        }

        @Override
        public int keyLength() {
            return current.getKey().length;
        }

        @Override
        public byte[] value() {
            return current.getValue().clone();
        }

        @Override
        public void close() {
            current = null;
        }
    }
}
