package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A read walking forward over a key with many versions (a hot key rewritten constantly, its versions kept by
 * snapshots) steps over a few and seeks past the rest ({@link UserIterator#MAX_SEQUENTIAL_SKIPS}, as LevelDB's
 * DBIter): its cost no longer grows with the key's history, and it still returns the version its snapshot sees.
 * Each of the three ways a version is passed is read: older than the one returned, newer than the snapshot, and
 * hidden by a deletion.
 */
class VersionSkipTest {
    private static final int VERSIONS = 1_000;
    /** What a read may pass at most around the hot key: a few versions one by one, a seek, and the neighbours. */
    private static final long BOUND = 2L * UserIterator.MAX_SEQUENTIAL_SKIPS + 4;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldSeekPastTheVersionsOfAHotKeyAfterAFew() {
        KvOptions options = KvOptions.builder().vfs(new MemVfs()).durability(Durability.NONE).build();
        try (LsmStore kv = LsmStore.open(Path.of("/hot"), options)) {
            kv.put(bytes("a"), bytes("first"));
            kv.put(bytes("z"), bytes("last"));
            List<KvSnapshot> snapshots = new ArrayList<>();
            try {
                for (int i = 0; i < VERSIONS; i++) {
                    kv.put(bytes("hot"), bytes("v" + i));
                    snapshots.add(kv.snapshot()); // keeps version i from being purged
                }
                // Older versions passed: the newest read, the others behind it.
                assertRead(kv, null, "v" + (VERSIONS - 1));
                // Newer versions passed: the oldest snapshot sees the first version, under 999 newer ones.
                assertRead(kv, snapshots.get(0), "v0");
                assertRead(kv, snapshots.get(VERSIONS / 2), "v" + VERSIONS / 2);
                // Versions hidden by a deletion.
                kv.delete(bytes("hot"));
                try (KvCursor c = kv.scan(bytes("a"), bytes("zz"), false, null)) {
                    List<String> keys = new ArrayList<>();
                    for (; c.valid(); c.next()) {
                        keys.add(new String(c.key(), StandardCharsets.UTF_8));
                    }
                    assertThat(keys).containsExactly("a", "z");
                    assertThat(c.deadEntriesSkipped()).isLessThanOrEqualTo(BOUND);
                }
            } finally {
                snapshots.forEach(KvSnapshot::close);
            }
        }
    }

    private static void assertRead(LsmStore kv, KvSnapshot snapshot, String hotValue) {
        try (KvCursor c = kv.scan(bytes("a"), bytes("zz"), false, snapshot)) {
            List<String> read = new ArrayList<>();
            for (; c.valid(); c.next()) {
                read.add(new String(c.key(), StandardCharsets.UTF_8) + "=" + new String(c.value(), StandardCharsets.UTF_8));
            }
            assertThat(read).containsExactly("a=first", "hot=" + hotValue, "z=last");
            assertThat(c.deadEntriesSkipped()).as("entries passed reading at %s", snapshot == null ? "the newest" : "a snapshot")
                    .isLessThanOrEqualTo(BOUND);
        }
    }
}
