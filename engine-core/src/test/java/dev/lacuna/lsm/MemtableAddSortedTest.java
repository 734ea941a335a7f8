package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Recovery fills a memtable in key order ({@link Memtable#addSorted}); it must end exactly as adding the same writes
 * in log order ({@link Memtable#add}) leaves it: the same entries, bytes, sequence bounds and count of deletions
 * that found a put of their key (which triggers a flush).
 */
class MemtableAddSortedTest {

    @Test
    void shouldLeaveTheMemtableAsAddingInLogOrderDoes() {
        Random random = new Random(7);
        for (int round = 0; round < 50; round++) {
            Memtable inLogOrder = new Memtable();
            List<byte[]> keys = new ArrayList<>();
            List<byte[]> values = new ArrayList<>();
            int writes = 1 + random.nextInt(400);
            int keySpace = 1 + random.nextInt(40);
            long sequence = 1 + random.nextInt(1000);
            for (int i = 0; i < writes; i++) {
                // A batch writes each key at most once, so several writes of one batch have distinct keys.
                int batch = Math.min(1 + random.nextInt(3), keySpace);
                int first = random.nextInt(keySpace);
                for (int k = 0; k < batch; k++) {
                    byte[] userKey = ("key" + (first + k) % keySpace).getBytes(StandardCharsets.UTF_8);
                    int kind = random.nextInt(4) == 0 ? (random.nextBoolean() ? InternalKey.KIND_DELETE
                            : InternalKey.KIND_SINGLE_DELETE) : InternalKey.KIND_PUT;
                    byte[] value = kind == InternalKey.KIND_PUT ? ("v" + sequence).getBytes(StandardCharsets.UTF_8)
                            : new byte[0];
                    inLogOrder.add(userKey, sequence, kind, value);
                    keys.add(InternalKey.encode(userKey, sequence, kind));
                    values.add(value);
                }
                sequence += 1 + random.nextInt(3);
            }
            Integer[] order = new Integer[keys.size()];
            Arrays.setAll(order, i -> i);
            Arrays.sort(order, (a, b) -> InternalKey.compare(keys.get(a), keys.get(b)));
            byte[][] sortedKeys = new byte[order.length][];
            byte[][] sortedValues = new byte[order.length][];
            for (int i = 0; i < order.length; i++) {
                sortedKeys[i] = keys.get(order[i]);
                sortedValues[i] = values.get(order[i]);
            }
            Memtable sorted = new Memtable();
            sorted.addSorted(sortedKeys, sortedValues, order.length);

            assertThat(entries(sorted)).as("round %d entries", round).isEqualTo(entries(inLogOrder));
            assertThat(sorted.bytes()).as("round %d bytes", round).isEqualTo(inLogOrder.bytes());
            assertThat(sorted.deadPairs()).as("round %d dead pairs", round).isEqualTo(inLogOrder.deadPairs());
            assertThat(sorted.minSequence()).isEqualTo(inLogOrder.minSequence());
            assertThat(sorted.maxSequence()).isEqualTo(inLogOrder.maxSequence());
            assertThat(sorted.size()).isEqualTo(inLogOrder.size());
            assertThat(sorted.added()).as("round %d entries added", round).isEqualTo(inLogOrder.added());
            assertThat(sorted.deletionsAdded()).as("round %d deletions added", round)
                    .isEqualTo(inLogOrder.deletionsAdded());
        }
    }

    private static List<String> entries(Memtable mem) {
        List<String> out = new ArrayList<>();
        try (InternalIterator it = mem.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                out.add(Arrays.toString(it.key()) + "=" + Arrays.toString(it.value()));
            }
        }
        return out;
    }
}
