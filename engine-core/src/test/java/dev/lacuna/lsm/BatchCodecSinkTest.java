package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.CorruptionException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The log record read operation by operation ({@link BatchCodec#decode(byte[], String, BatchCodec.OpSink)}), as
 * recovery reads it: each value is handed over as where it lies in the payload, and a damaged record still fails.
 */
class BatchCodecSinkTest {

    /** What the sink was handed, each value copied out of the payload at the place it was said to be. */
    private static List<WriteBatch.Op> read(byte[] payload, long lsn, List<WriteBatch.Op> into) {
        BatchCodec.decodeLogRecord(payload, 0, payload.length, lsn, (kind, key, b, valueAt, valueLength) -> {
            assertThat(b).isSameAs(payload);
            into.add(new WriteBatch.Op(kind, key, Arrays.copyOfRange(b, valueAt, valueAt + valueLength)));
        });
        return into;
    }

    @Test
    void shouldHandOverEveryOperationWithItsValueWhereItLiesInThePayload() {
        List<WriteBatch.Op> ops = List.of(new WriteBatch.Op(WriteBatch.KIND_PUT, bytes("alpha"), bytes("one")),
                new WriteBatch.Op(WriteBatch.KIND_DELETE, bytes("beta"), new byte[0]),
                new WriteBatch.Op(WriteBatch.KIND_LOG_ONLY, bytes("alpha"), bytes("before")),
                new WriteBatch.Op(WriteBatch.KIND_PUT, bytes("gamma"), new byte[300])); // a two-byte length
        byte[] payload = BatchCodec.encode(ops, 1_700_000_000_000L, 0);
        List<WriteBatch.Op> read = read(payload, 7, new ArrayList<>());
        assertThat(read).hasSize(4);
        for (int i = 0; i < ops.size(); i++) {
            assertThat(read.get(i).kind()).isEqualTo(ops.get(i).kind());
            assertThat(read.get(i).key()).isEqualTo(ops.get(i).key());
            assertThat(read.get(i).value()).isEqualTo(ops.get(i).value());
        }
        assertThat(read).usingRecursiveFieldByFieldElementComparator()
                .isEqualTo(BatchCodec.decode(payload, "test").ops());
    }

    @Test
    void shouldFailARecordWithTrailingBytesNamingItsLsnAfterHandingOverItsOperations() {
        byte[] payload = BatchCodec.encode(List.of(new WriteBatch.Op(WriteBatch.KIND_PUT, bytes("k"), bytes("v"))),
                5, 0);
        byte[] trailing = Arrays.copyOf(payload, payload.length + 1);
        List<WriteBatch.Op> handed = new ArrayList<>();
        assertThatThrownBy(() -> read(trailing, 42, handed)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("log record 42").hasMessageContaining("trailing bytes");
        assertThat(handed).hasSize(1); // the caller drops them: Replay discards the whole batch
    }

    @Test
    void shouldFailAValueLongerThanWhatIsLeft() {
        byte[] payload = BatchCodec.encode(List.of(new WriteBatch.Op(WriteBatch.KIND_PUT, bytes("k"), bytes("value"))),
                5, 0);
        byte[] cut = Arrays.copyOf(payload, payload.length - 2);
        List<WriteBatch.Op> handed = new ArrayList<>();
        assertThatThrownBy(() -> read(cut, 3, handed)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("log record 3").hasMessageContaining("value length 5 exceeds the 3 bytes left");
        assertThat(handed).isEmpty();
    }
    @Test
    void shouldReadAPayloadLyingInsideALargerArrayTellingADamagedOnesPositionFromItsStart() {
        byte[] payload = BatchCodec.encode(List.of(new WriteBatch.Op(WriteBatch.KIND_PUT, bytes("key"), bytes("value")),
                new WriteBatch.Op(WriteBatch.KIND_DELETE, bytes("gone"), new byte[0])), 9, 0);
        byte[] around = new byte[payload.length + 40];
        Arrays.fill(around, (byte) 0x7f);
        System.arraycopy(payload, 0, around, 17, payload.length);
        List<WriteBatch.Op> read = new ArrayList<>();
        BatchCodec.decodeLogRecord(around, 17, payload.length, 3, (kind, key, b, valueAt, valueLength) ->
                read.add(new WriteBatch.Op(kind, key, Arrays.copyOfRange(b, valueAt, valueAt + valueLength))));
        assertThat(read).usingRecursiveFieldByFieldElementComparator()
                .isEqualTo(BatchCodec.decode(payload, "test").ops());

        // One byte short: the bytes after the payload are not read, and the damage is where the payload ends.
        assertThatThrownBy(() -> BatchCodec.decodeLogRecord(around, 17, payload.length - 1, 3,
                (kind, key, b, valueAt, valueLength) -> { }))
                .isInstanceOf(CorruptionException.class).hasMessageContaining("log record 3")
                .satisfies(e -> assertThat(((CorruptionException) e).offset()).isBetween(1L,
                        (long) payload.length - 1));
        assertThatThrownBy(() -> BatchCodec.decodeLogRecord(around, 17, 0, 4, (kind, key, b, valueAt, valueLength) -> {
        })).isInstanceOf(CorruptionException.class).hasMessageContaining("not a key/value batch");
    }
}
