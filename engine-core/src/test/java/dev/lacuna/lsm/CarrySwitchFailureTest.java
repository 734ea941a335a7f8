package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.lang.reflect.Field;
import java.util.AbstractList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A carrying freeze that fails after its copy is made (an OutOfMemoryError while the tree switches memtables) must
 * leave the memtable's flush writing every key: the memtable was marked as carried from as soon as the copy existed,
 * so when the switch then failed, the copy was thrown away and the next whole freeze flushed the memtable without the
 * carried puts (review of 09e6cfd: a put gone after a flush). The mark is now made last, once the switch is done. The
 * failure is simulated: the tree's list of frozen memtables throws once, when the switch reads it.
 */
class CarrySwitchFailureTest {
    @Test
    void shouldFlushTheCarriedPutsWhenTheSwitchFails() throws Exception {
        try (LsmStore kv = IndexLikeStore.open(KvOptions.builder().vfs(new MemVfs()).durability(Durability.NONE)
                .deadEntryTrigger(1))) {
            byte[] live = IndexLikeStore.key("live");
            IndexLikeStore.apply(kv, new WriteBatch().put(live, b("live")));
            Db db = LsmInternals.db(kv);
            Tree tree = db.trees[db.treeOf(live)];
            Field immutables = Tree.class.getDeclaredField("immutables");
            immutables.setAccessible(true);
            Throwable thrown = null;
            try (KvCursor held = kv.scan(b("a"), b("b"), false, null)) { // no purge: the pair below stays
                IndexLikeStore.apply(kv, new WriteBatch().put(IndexLikeStore.key("x"), b("x")));
                @SuppressWarnings("unchecked")
                List<Memtable> real = (List<Memtable>) immutables.get(tree);
                AtomicBoolean armed = new AtomicBoolean(true);
                immutables.set(tree, new AbstractList<Memtable>() {
                    @Override
                    public Memtable get(int i) {
                        return real.get(i);
                    }

                    @Override
                    public int size() {
                        if (armed.get() && StackWalker.getInstance().walk(s -> s.anyMatch(
                                f -> f.getMethodName().equals("switchCarrying")))) {
                            armed.set(false);
                            throw new OutOfMemoryError("simulated, while the tree switches memtables");
                        }
                        return real.size();
                    }
                });
                try {
                    // A dead pair: the freeze for dead entries carries "live", then its switch fails.
                    IndexLikeStore.apply(kv, new WriteBatch().delete(IndexLikeStore.key("x")));
                } catch (OutOfMemoryError e) {
                    thrown = e;
                } finally {
                    immutables.set(tree, real);
                }
                assertThat(armed.get()).as("the switch met the simulated failure").isFalse();
            }
            assertThat(thrown).as("what the deletion that called for the freeze was told").isNotNull();
            assertThat(kv.get(live)).as("the put before the flush").isEqualTo(b("live"));
            kv.flush(); // a whole freeze of the memtable the failed switch left
            assertThat(kv.get(live)).as("the put after the flush").isEqualTo(b("live"));
        }
    }
}
