package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalKey;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review: replays, one step at a time, an interleaving of {@link ArenaSkipList#insert} (its steps called
 * through reflection, in its order) with a removal of the node being inserted and an insert of a neighbour. The
 * list's contract says inserts and removals are safe together; the memtable never removes a node whose insert has not
 * returned, so there this cannot happen.
 */
class ArenaSkipListInterleavingTest {
    private static byte[] key(String user) {
        return InternalKey.encode(user.getBytes(StandardCharsets.UTF_8), 1, InternalKey.KIND_PUT);
    }

    @Test
    void aNodeRemovedWhileItsInsertLinksItHigherMustNotHideAnInsertAfterIt() throws Exception {
        ArenaSkipList list = new ArenaSkipList();
        Steps steps = new Steps(list);
        steps.insert(key("a"), 1, Integer.MAX_VALUE);
        steps.insert(key("z"), 1, Integer.MAX_VALUE);
        byte[] x = key("m");
        byte[] n = key("p"); // after x, before z: in x's gap at level 0
        // Thread 1 inserts x with two links: links level 0, sets its own level-1 link, is preempted before linking
        // its predecessor at level 1 to it.
        Steps.Partial partial = steps.insert(x, 2, 1);
        // Thread 2 finds x (live at level 0) and removes it: marks both links, unlinks it at level 0; at level 1 it
        // is not linked yet.
        long found = list.find(x);
        assertThat(found).isEqualTo(partial.node());
        assertThat(list.remove(found)).isTrue();
        // Thread 3 inserts n, one link: into x's old place at level 0. Returns: n is in the list.
        steps.insert(n, 1, Integer.MAX_VALUE);
        assertThat(list.find(n)).as("n just inserted").isNotEqualTo(ArenaSkipList.NIL);
        // Thread 1 resumes: its compare-and-set on the predecessor's level-1 link still succeeds (that link did not
        // change), so x, removed, is linked at level 1; seeing its own link marked, insert returns.
        partial.resume();
        // A reader now: down level 1 to x, then x's (frozen) level-0 link, which skips n.
        assertThat(list.find(n)).as("n, inserted and never removed, found by a search").isNotEqualTo(ArenaSkipList.NIL);
        assertThat(list.seekBelow(key("q"), false)).as("the last node below q").isNotEqualTo(ArenaSkipList.NIL);
        assertThat(list.key(list.seekBelow(key("q"), false))).isEqualTo(n);
    }

    /** ArenaSkipList.insert's steps, called one by one through reflection, with a chosen height. */
    private static final class Steps {
        private final ArenaSkipList list;
        private final Method allocate;
        private final Method chunk;
        private final Method findSplice;
        private final Method casLink;
        private final Method link;
        private final VarHandle longs;

        Steps(ArenaSkipList list) throws Exception {
            this.list = list;
            allocate = method("allocate", int.class);
            chunk = method("chunk", long.class);
            findSplice = method("findSplice", byte[].class, boolean.class, long[].class, long[].class);
            casLink = method("casLink", long.class, int.class, long.class, long.class);
            link = method("link", long.class, int.class);
            Field f = ArenaSkipList.class.getDeclaredField("LONG");
            f.setAccessible(true);
            longs = (VarHandle) f.get(null);
        }

        private static Method method(String name, Class<?>... types) throws NoSuchMethodException {
            Method m = ArenaSkipList.class.getDeclaredMethod(name, types);
            m.setAccessible(true);
            return m;
        }

        /** A node's insert stopped before its predecessor at {@code level} is linked to it. */
        record Partial(Steps steps, long node, int level, long pred, long succ) {
            void resume() throws Exception {
                boolean linked = (boolean) steps.casLink.invoke(steps.list, pred, level, succ, node);
                assertThat(linked).as("the predecessor's link unchanged: the CAS succeeds").isTrue();
                assertThat((long) steps.link.invoke(steps.list, node, level)).as("x's own link marked").isNegative();
            }
        }

        /** As insert, with {@code height} links; stops before linking the predecessor at {@code stopAt}. */
        Partial insert(byte[] key, int height, int stopAt) throws Exception {
            long node = (long) allocate.invoke(list, 8 + 8 * height + key.length);
            byte[] c = (byte[]) chunk.invoke(list, node);
            int at = (int) node;
            longs.set(c, at, ((long) height << 58) | ((long) key.length << 32));
            System.arraycopy(key, 0, c, at + 8 + 8 * height, key.length);
            long[] preds = new long[ArenaSkipList.MAX_HEIGHT];
            long[] succs = new long[ArenaSkipList.MAX_HEIGHT];
            while (true) {
                findSplice.invoke(list, key, true, preds, succs);
                longs.set(c, at + 8, succs[0]);
                if ((boolean) casLink.invoke(list, preds[0], 0, succs[0], node)) {
                    break;
                }
            }
            for (int level = 1; level < height; level++) {
                long mine = (long) link.invoke(list, node, level);
                assertThat((boolean) casLink.invoke(list, node, level, mine, succs[level])).isTrue();
                if (level == stopAt) {
                    return new Partial(this, node, level, preds[level], succs[level]);
                }
                assertThat((boolean) casLink.invoke(list, preds[level], level, succs[level], node)).isTrue();
            }
            return new Partial(this, node, -1, 0, 0);
        }
    }
}
