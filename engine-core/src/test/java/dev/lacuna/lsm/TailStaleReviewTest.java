package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalKey;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Review of c583750: inserts from a level-0 tail forced stale, removed, or before an equal key; the head as every tail. */
class TailStaleReviewTest {
    private static byte[] key(String user) {
        return InternalKey.encode(user.getBytes(StandardCharsets.UTF_8), 1, InternalKey.KIND_PUT);
    }

    private static long[] tails(ArenaSkipList list) throws Exception {
        Field f = ArenaSkipList.class.getDeclaredField("tails");
        f.setAccessible(true);
        return (long[]) f.get(list);
    }

    @Test
    void staleOrRemovedTailsNeverMissAnEqualKeyNorBreakALevel() throws Exception {
        ArenaSkipList list = new ArenaSkipList();
        Set<String> live = new HashSet<>();
        long[] nodes = new long[5];
        String[] users = {"a", "b", "c", "d", "e"};
        for (int i = 0; i < 5; i++) {
            nodes[i] = list.insert(key(users[i]), new byte[] {(byte) i});
            live.add(Arrays.toString(key(users[i])));
        }
        long[] tails = tails(list);
        // Stale by four nodes at level 0 (the only level every node is linked at, and so may be the tail of): an
        // equal key of the last must still replace it.
        tails[0] = nodes[0];
        list.insert(key("e"), new byte[] {42});
        assertThat(list.value(list.find(key("e")))).containsExactly(42);
        ArenaSkipListStressTest.Levels.verify(list, live);
        // A removed tail at level 0: the insert falls back and lands in order.
        assertThat(list.remove(nodes[2])).isTrue();
        live.remove(Arrays.toString(key("c")));
        tails[0] = nodes[2];
        list.insert(key("f"), new byte[] {1});
        live.add(Arrays.toString(key("f")));
        ArenaSkipListStressTest.Levels.verify(list, live);
        // The head as the tail of every level (as a fresh or empty-built list has), with nodes linked: walked from.
        Arrays.fill(tails, -1L);
        list.insert(key("g"), new byte[] {1});
        live.add(Arrays.toString(key("g")));
        list.insert(key("g"), new byte[] {9}); // equal to the last: replaces it
        ArenaSkipListStressTest.Levels.verify(list, live);
        assertThat(list.value(list.find(key("g")))).containsExactly(9);
        assertThat(list.key(list.seekBelow(null, false))).isEqualTo(key("g"));
    }
}
