package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalKey;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Recovery orders a partition's writes, placed as nodes in an arena, with {@link InternalKeySort}; its order must be
 * exactly a stable comparison sort's by {@link InternalKey#COMPARATOR}, whatever the keys: sharing long prefixes, prefixes of one another, zero
 * bytes where the summary pads with zeros, many versions of one key, and one key and sequence written twice.
 */
class InternalKeySortTest {
    private static final int[] SIZES = {0, 1, 2, 17, 255, 256, 257, 1000, 5000};

    @Test
    void shouldOrderAsAStableComparisonSortDoes() {
        Random random = new Random(13);
        for (int shape = 0; shape < 5; shape++) {
            for (int size : SIZES) {
                byte[][] keys = new byte[size][];
                for (int i = 0; i < size; i++) {
                    keys[i] = key(random, shape);
                }
                Integer[] expected = new Integer[size];
                Arrays.setAll(expected, i -> i);
                Arrays.sort(expected, (a, b) -> InternalKey.compare(keys[a], keys[b]));
                boolean twice = false;
                for (int i = 1; i < size; i++) {
                    byte[] a = keys[expected[i - 1]];
                    byte[] b = keys[expected[i]];
                    twice |= InternalKey.sameUserKey(a, b) && InternalKey.sequence(a) == InternalKey.sequence(b);
                }

                ArenaSkipList list = new ArenaSkipList();
                long[] nodes = new long[size + 1]; // one more than sorted: the sort takes a count
                for (int i = 0; i < size; i++) {
                    nodes[i] = i % 2 == 0 ? list.place(keys[i], new byte[i % 3])
                            : list.place(InternalKey.userKey(keys[i]), InternalKey.trailer(keys[i]), new byte[0]);
                }
                long[] logOrder = nodes.clone();

                InternalKeySort.Result result = InternalKeySort.order(list, nodes, size);

                long[] expectedNodes = Arrays.stream(expected).mapToLong(i -> nodes[i]).toArray();
                assertThat(result.order()).as("shape %d, %d keys", shape, size).containsExactly(expectedNodes);
                assertThat(nodes).as("the input is left as it was").containsExactly(logOrder);
                assertThat(result.keyAndSequenceTwice()).as("shape %d, %d keys", shape, size).isEqualTo(twice);
            }
        }
    }

    /** A random internal key of one of five shapes. */
    private static byte[] key(Random random, int shape) {
        byte[] user;
        switch (shape) {
            case 0 -> { // short, from three bytes that include 0 and FF: prefixes of each other and padding ties
                user = new byte[random.nextInt(12)];
                byte[] alphabet = {0, 1, (byte) 0xFF};
                for (int i = 0; i < user.length; i++) {
                    user[i] = alphabet[random.nextInt(alphabet.length)];
                }
            }
            case 1 -> { // a long shared prefix, then keys that agree for more than eight bytes past it
                user = ("table-0001/partition/" + "x".repeat(random.nextInt(3) * 9) + random.nextInt(50)).getBytes();
            }
            case 2 -> { // few keys, many versions
                user = ("k" + random.nextInt(5)).getBytes();
            }
            case 3 -> { // random bytes, random lengths
                user = new byte[random.nextInt(30)];
                random.nextBytes(user);
            }
            default -> { // like an item key: a table id, then a string
                user = ("\0\0\0\7" + "TICKET#" + random.nextInt(100_000) + "\0\1").getBytes();
            }
        }
        long sequence = 1 + random.nextInt(shape == 2 ? 40 : 1_000_000);
        int kind = random.nextInt(3);
        return InternalKey.encode(user, sequence, kind);
    }
}
