package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static dev.lacuna.lsm.KvKeyspaceTest.key;
import static dev.lacuna.lsm.KvStoreTest.DIR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The key/value log record, version 2 (write time and flags, for change streams), and version 1 still read
 * (lsm/FORMAT.md, "Log record: key/value batch").
 */
class BatchCodecVersionTest {

    @Test
    void shouldRoundTripTheWriteTimeAndFlags() {
        List<WriteBatch.Op> ops = List.of(new WriteBatch.Op(WriteBatch.KIND_PUT, bytes("k"), bytes("v")),
                new WriteBatch.Op(WriteBatch.KIND_LOG_ONLY, bytes("k"), bytes("old")));
        byte[] payload = BatchCodec.encode(ops, 1_700_000_000_123L, WriteBatch.FLAG_SERVICE);
        assertThat(payload[0]).isEqualTo((byte) 2);
        BatchCodec.Decoded d = BatchCodec.decode(payload, "test");
        assertThat(d.writeTimeMillis()).isEqualTo(1_700_000_000_123L);
        assertThat(d.flags()).isEqualTo(WriteBatch.FLAG_SERVICE);
        assertThat(d.ops()).hasSize(2);
        assertThat(d.ops().get(1).value()).isEqualTo(bytes("old"));
    }

    @Test
    void shouldReadAVersionOneRecordAsWrittenAtTimeZeroWithoutFlags() {
        // type 1 | count 1 | put: kind 1, key "k", value "v"
        byte[] v1 = {1, 1, 1, 1, 'k', 1, 'v'};
        BatchCodec.Decoded d = BatchCodec.decode(v1, "test");
        assertThat(d.writeTimeMillis()).isZero();
        assertThat(d.flags()).isZero();
        assertThat(d.ops()).singleElement().satisfies(op -> {
            assertThat(op.kind()).isEqualTo(WriteBatch.KIND_PUT);
            assertThat(op.key()).isEqualTo(bytes("k"));
            assertThat(op.value()).isEqualTo(bytes("v"));
        });
    }

    @Test
    void shouldRefuseAnUnknownFlagOrAPayloadCutInItsHeader() {
        byte[] payload = BatchCodec.encode(List.of(), 5, 0);
        byte[] badFlag = payload.clone();
        badFlag[2] = 2; // type, write time 5 (one byte), flags
        assertThatThrownBy(() -> BatchCodec.decode(badFlag, "test")).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("unknown batch flags 2");
        assertThatThrownBy(() -> BatchCodec.decode(new byte[] {2, 5}, "test")).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("ends early");
        assertThatThrownBy(() -> BatchCodec.decode(new byte[] {3, 0}, "test")).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("not a key/value batch");
    }

    @Test
    void shouldLogTheStoresClockAndTheServiceFlag() {
        Clock clock = Clock.fixed(Instant.ofEpochMilli(1_234_567L), ZoneOffset.UTC);
        try (LsmStore kv = LsmStore.open(DIR, KvKeyspaceTest.options(new MemVfs()).toBuilder().clock(clock).build())) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            long plain = kv.write(new WriteBatch().put(key(base, "a"), bytes("1")), Durability.SYNC);
            kv.write(new WriteBatch().delete(key(base, "a")).markService(), Durability.SYNC);
            try (KvLogReader log = kv.logReader(plain)) {
                KvLogReader.Batch first = log.next();
                assertThat(first.writeTimeMillis()).isEqualTo(1_234_567L);
                assertThat(first.flags()).isZero();
                KvLogReader.Batch second = log.next();
                assertThat(second.flags()).isEqualTo(WriteBatch.FLAG_SERVICE);
            }
        }
    }
}
