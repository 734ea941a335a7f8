package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static dev.lacuna.lsm.KvKeyspaceTest.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Review of ef43bf8: a cursor at rest stands on the older version of the key it just returned (UserIterator steps
 * onto it). In a keyspace written by applyUnlogged (an index), versions at sequences at or below the safe sequence
 * are inserted while the cursor is open. The cursor's node is dropped (its link frozen on the next key's version),
 * a new version of the next key is linked in front of that one, and becomes the hider that drops it: the cursor then
 * walks from its dropped node to the dropped version and on past the key, which it never returns although the key
 * held a put at every sequence. Unlogged applies now drop no hidden version (WritePath#commit).
 */
class HiddenDropUnloggedCursorReviewTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void cursorAtRestMustNotLoseTheNextKeyOfAnIndexKeyspace() {
        KvOptions options = KvOptions.builder().vfs(new MemVfs())
                .keyspaceRouter(dev.lacuna.kv.KeyspaceRouter.FIRST_FOUR_BYTES)
                .memtableBytes(1 << 20).memoryBudget(64 << 20).durability(Durability.NONE).build();
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            int index = kv.createKeyspace(1, bytes("index")).id();
            long[] lsn = new long[21];
            for (int i = 1; i <= 20; i++) { // LSNs the index's updater applies at, as it follows the log
                lsn[i] = kv.write(new WriteBatch().put(key(base, "b" + i), bytes("v")), Durability.NONE);
            }
            kv.applyUnlogged(new WriteBatch().put(key(index, "w"), bytes("w1")), lsn[1]);
            kv.applyUnlogged(new WriteBatch().put(key(index, "w"), bytes("w2")), lsn[2]);
            kv.applyUnlogged(new WriteBatch().put(key(index, "x"), bytes("x1")), lsn[3]);
            kv.applyUnlogged(new WriteBatch().put(key(index, "y"), bytes("y1")), lsn[4]);
            for (int i = 0; i < 4; i++) { // epochs flip: the safe sequence catches up with what is visible
                kv.write(new WriteBatch().put(key(base, "c" + i), bytes("v")), Durability.NONE);
            }
            try (KvCursor c = kv.scan(key(index, "w"), key(index, "z"), false, null)) {
                assertThat(c.valid()).isTrue();
                assertThat(new String(c.value(), StandardCharsets.UTF_8)).isEqualTo("w2");
                // the cursor rests, standing on w@lsn1; the writer and the updater go on
                kv.write(new WriteBatch().put(key(base, "d"), bytes("v")), Durability.NONE);
                kv.applyUnlogged(new WriteBatch().put(key(index, "w"), bytes("w3")), lsn[5]); // drops w@lsn1
                kv.applyUnlogged(new WriteBatch().put(key(index, "x"), bytes("x2")), lsn[6]);
                kv.applyUnlogged(new WriteBatch().put(key(index, "x"), bytes("x3")), lsn[7]); // drops x@lsn3
                c.next();
                assertThat(c.valid()).isTrue();
                assertThat(new String(c.key(), StandardCharsets.UTF_8)).as("the key after w")
                        .isEqualTo(new String(key(index, "x"), StandardCharsets.UTF_8));
            }
        }
    }
}
