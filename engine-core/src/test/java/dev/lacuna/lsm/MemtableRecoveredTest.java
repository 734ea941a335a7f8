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
 * Recovery builds a memtable from its writes in key order ({@link Memtable#recovered}, ordered by
 * {@link InternalKeySort}); it must end exactly as adding the same writes
 * in log order ({@link Memtable#add}) leaves it: the same entries, bytes, sequence bounds and count of deletions
 * that found a put of their key (which triggers a flush).
 */
class MemtableRecoveredTest {

    @Test
    void shouldLeaveTheMemtableAsAddingInLogOrderDoes() {
        Random random = new Random(7);
        for (int round = 0; round < 50; round++) {
            Memtable inLogOrder = new Memtable();
            List<byte[]> keys = new ArrayList<>();
            List<byte[]> values = new ArrayList<>();
            int writes = 1 + random.nextInt(round % 5 == 0 ? 3000 : 400); // some past the radix sort's threshold
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
            ArenaSkipList list = new ArenaSkipList();
            long[] nodes = new long[keys.size()];
            for (int i = 0; i < nodes.length; i++) { // as recovery places them: user key and trailer apart
                nodes[i] = list.place(InternalKey.userKey(keys.get(i)), InternalKey.trailer(keys.get(i)),
                        values.get(i));
            }
            InternalKeySort.Result order = InternalKeySort.order(list, nodes, nodes.length);
            assertThat(order.keyAndSequenceTwice()).isFalse();
            Memtable sorted = Memtable.recovered(list, order.order());

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

    /** A memtable's entries in order, key and value, for comparing two memtables (the replay review tests use it). */
    static List<String> entries(Memtable mem) {
        List<String> out = new ArrayList<>();
        try (InternalIterator it = mem.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                out.add(Arrays.toString(it.key()) + "=" + Arrays.toString(it.value()));
            }
        }
        return out;
    }
}
