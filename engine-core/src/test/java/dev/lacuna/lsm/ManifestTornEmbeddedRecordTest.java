package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * A user key holding the bytes of a well-formed manifest record (8-byte header + payload, CRC32C matching)
 * ends up in a flush's version edit (the file's smallest/largest key). If a power loss tears that edit's
 * append after the key's bytes, Manifest.readEdits finds "a well-formed record" inside the torn edit and
 * refuses the store as damaged, although the edit was never acknowledged.
 */
class ManifestTornEmbeddedRecordTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldOpenAfterACrashTearsAFlushEditWhoseKeyLooksLikeARecord() throws Exception {
        MemVfs mem = new MemVfs();
        ControlledVfs vfs = new ControlledVfs(mem, "MANIFEST");
        byte[] key = keyEmbeddingARecord();
        List<String> refused = new ArrayList<>();
        int seeds = 200;
        LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(vfs).durability(Durability.SYNC).build());
        try {
            kv.put(key, new byte[] {1});
            vfs.hold();
            CompletableFuture<Void> flush = CompletableFuture.runAsync(kv::flush);
            vfs.awaitHeld(); // the flush's edit is written to the manifest, its fsync not done: a power loss now
            for (int seed = 0; seed < seeds; seed++) {
                MemVfs crashed = mem.crashClone(new Random(seed));
                try (LsmStore reopened = LsmStore.open(DIR, KvOptions.builder().vfs(crashed).build())) {
                    assertThat(reopened.get(key)).isEqualTo(new byte[] {1});
                } catch (CorruptionException e) {
                    refused.add("seed " + seed + ": " + e.getMessage());
                }
            }
            vfs.release();
            flush.join();
        } finally {
            vfs.release();
            kv.close();
        }
        refused.stream().limit(3).forEach(System.out::println);
        assertThat(refused).as("power-loss images refused as damaged, of " + seeds).isEmpty();
    }

    /** "k" followed by a complete, well-formed manifest record of a 4-byte payload. */
    static byte[] keyEmbeddingARecord() {
        byte[] payload = {'e', 'v', 'i', 'l'};
        ByteBuffer r = ByteBuffer.allocate(1 + 8 + payload.length).order(ByteOrder.LITTLE_ENDIAN);
        r.put((byte) 'k').putInt(payload.length);
        CRC32C crc = new CRC32C();
        crc.update(r.array(), 1, 4);
        crc.update(payload);
        r.putInt((int) crc.getValue()).put(payload);
        return r.array();
    }
}
