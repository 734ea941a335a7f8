package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.DIR;
import static dev.lacuna.lsm.KvStoreTest.b;
import static dev.lacuna.lsm.KvStoreTest.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.vfs.MemVfs;
import java.lang.reflect.Field;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A view closed twice must be refused at the second close, touching no count: it used to drop another
 * reference (another reader's, or the tree's own while the view was current), so the view's version was
 * released under readers and, once the count reached zero while the view was still current, every later
 * {@link Tree#acquire} spun forever on it.
 */
class ViewDoubleReleaseTest {
    @Test
    void aSecondCloseIsRefusedAndTheTreeStaysReadable() throws Exception {
        ExecutorService reader = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "reader");
            t.setDaemon(true); // before the fix its acquire never returned
            return t;
        });
        try (LsmStore kv = LsmStore.open(DIR, KvStoreTest.small(new MemVfs(), 1))) {
            kv.put(b("k"), b("v"));
            kv.flush(); // the view's version holds a table
            Tree tree = db(kv).trees[0];

            // One reader closing twice: the second close would take the tree's own reference of the current view.
            Tree.View view = tree.acquire();
            view.close();
            Throwable second = null;
            try {
                view.close();
            } catch (IllegalStateException e) {
                second = e;
            }
            // The tree's reference is intact: a new reader gets the view (it spun forever on a count of zero).
            CompletableFuture<Boolean> again = CompletableFuture.supplyAsync(() -> {
                try (Tree.View v = tree.acquire()) {
                    return v.version().files(0).size() + v.version().files(1).size() > 0;
                }
            }, reader);
            assertThat(again.get(30, TimeUnit.SECONDS)).as("the view still holds its table").isTrue();
            assertThat(second).as("the second close").isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("twice");

            // Two readers, one closing twice: the second close would take the other reader's reference.
            Tree.View other = tree.acquire();
            view = tree.acquire();
            view.close();
            assertThatThrownBy(view::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("twice");
            assertThat(other.version().files(0).size() + other.version().files(1).size()).isPositive();
            other.close();
            assertThatThrownBy(other::close).isInstanceOf(IllegalStateException.class);
            assertThat(s(kv.get(b("k")))).isEqualTo("v");
            kv.put(b("k2"), b("v2"));
            kv.flush(); // replaces the view: its last reference goes, once
            assertThat(s(kv.get(b("k")))).isEqualTo("v");
            assertThat(s(kv.get(b("k2")))).isEqualTo("v2");
        } finally {
            reader.shutdownNow();
        }
    }

    private static Db db(LsmStore kv) throws ReflectiveOperationException {
        Field f = LsmStore.class.getDeclaredField("db");
        f.setAccessible(true);
        return (Db) f.get(kv);
    }
}
