package dev.lacuna.sstable;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalKey;
import dev.lacuna.kv.KeyPrefix;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A table's prefix filter holds the prefix of every key when a user's {@link KeyPrefix} gives prefixes of
 * different lengths, including a shorter prefix that follows a longer one it begins (keys {@code k7c\x7F1} then
 * {@code k7\x7Fz}: prefixes {@code k7c} then {@code k7}). The writer adds each run's prefix once; it must not take
 * the shorter prefix for the run before it (a PIT survivor: the length test negated in that check left every such
 * prefix out, and a prefix scan would then skip the table).
 */
class VariablePrefixFilterTest {
    /** The bytes before the first 0x7F, or the whole key. */
    private static final KeyPrefix UP_TO_SEPARATOR = key -> {
        for (int i = 0; i < key.length; i++) {
            if (key[i] == 0x7F) {
                return i;
            }
        }
        return key.length;
    };

    @Test
    void shouldFindThePrefixOfEveryKeyWhenPrefixesDifferInLength() throws Exception {
        TreeMap<byte[], byte[]> model = TestTables.model();
        List<byte[]> users = new ArrayList<>();
        long sequence = 1;
        for (int i = 0; i < 300; i++) {
            for (String user : new String[] {"k" + i + "c\u007F1", "k" + i + "\u007Fz"}) {
                byte[] key = user.getBytes(StandardCharsets.US_ASCII);
                users.add(key);
                model.put(InternalKey.encode(key, sequence++, InternalKey.KIND_PUT), new byte[2]);
            }
        }
        MemVfs vfs = new MemVfs();
        TestTables.write(vfs, "1.sst", model, SstableOptions.defaults().withKeyPrefix(UP_TO_SEPARATOR), 0);
        int missing = 0;
        try (SstableReader reader = TestTables.open(vfs, "1.sst", 1, new BlockCache(0))) {
            for (byte[] user : users) {
                byte[] prefix = Arrays.copyOf(user, UP_TO_SEPARATOR.prefixLength(user));
                missing += reader.mayContainPrefix(prefix) ? 0 : 1;
            }
        }
        System.out.println("variable-length prefixes checked: " + users.size() + ", missing from the filter: " + missing);
        assertThat(missing).as("prefixes the filter says the table cannot hold").isZero();
    }
}
