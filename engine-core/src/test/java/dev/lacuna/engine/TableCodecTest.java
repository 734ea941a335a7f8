package dev.lacuna.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.TableSpec;
import dev.lacuna.storage.CorruptionException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Keyspace descriptors of every kind are read to their end: a tokens or index descriptor with bytes missing
 * or left over is damage, as FORMAT.md says (kinds 2 and 3 used to be accepted on their first two bytes).
 * A table's settings (version 3: time to live and tags; version 4: the stream) round-trip, and version 2 and 3
 * descriptors are still read.
 */
class TableCodecTest {
    /** The stream's bytes at the end of a version 4 table descriptor: flag u8, view type u8, label i64. */
    private static final int STREAM_BYTES = 10;

    /** The version 3 form of a version 4 descriptor of a table without a stream. */
    private static byte[] v3(byte[] v4) {
        byte[] v3 = Arrays.copyOf(v4, v4.length - STREAM_BYTES);
        v3[0] = 3;
        return v3;
    }

    @Test
    void shouldReadTokensAndIndexDescriptorsToTheirEnd() {
        assertThat(TableCodec.decode(5, TableCodec.encodeTokens()).kind()).isEqualTo(TableCodec.KIND_TOKENS);
        byte[] index = TableCodec.encodeIndex("Tickets", "GSI1");
        assertThat(TableCodec.decode(6, index).kind()).isEqualTo(TableCodec.KIND_INDEX);

        byte[] tokensPlus = Arrays.copyOf(TableCodec.encodeTokens(), 3);
        assertThatThrownBy(() -> TableCodec.decode(5, tokensPlus)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("keyspace 5").hasMessageContaining("1 bytes after the descriptor");
        byte[] indexPlus = Arrays.copyOf(index, index.length + 2);
        assertThatThrownBy(() -> TableCodec.decode(6, indexPlus)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("2 bytes after the descriptor");
        byte[] indexCut = Arrays.copyOf(index, index.length - 3);
        assertThatThrownBy(() -> TableCodec.decode(6, indexCut)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("malformed descriptor");
    }

    private static final TableSpec SPEC = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).build();
    private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void shouldRoundTripTimeToLiveAndTags() {
        TableSettings settings = new TableSettings("expiresAt", new TreeMap<>(Map.of("team", "support", "env", "")));
        byte[] bytes = TableCodec.encode(SPEC, CREATED, List.of(), settings);
        assertThat(bytes[0]).isEqualTo((byte) TableCodec.VERSION);
        TableSchema t = TableCodec.decode(7, bytes).table();
        assertThat(t.settings()).isEqualTo(settings);
        assertThat(t.spec()).isEqualTo(SPEC);
        assertThat(t.createdAt()).isEqualTo(CREATED);
        assertThat(TableCodec.decode(7, TableCodec.encode(SPEC, CREATED, List.of(), TableSettings.NONE)).table()
                .settings()).isEqualTo(TableSettings.NONE);
    }

    @Test
    void shouldReadAVersionTwoTableDescriptorAsOneWithoutTimeToLiveOrTags() {
        byte[] v3 = v3(TableCodec.encode(SPEC, CREATED, List.of(), TableSettings.NONE));
        // Version 2 is version 3 without the trailing ttl flag (0) and tag count (0, 0).
        assertThat(Arrays.copyOfRange(v3, v3.length - 3, v3.length)).containsExactly(0, 0, 0);
        byte[] v2 = Arrays.copyOf(v3, v3.length - 3);
        v2[0] = 2;
        TableSchema t = TableCodec.decode(7, v2).table();
        assertThat(t.settings()).isEqualTo(TableSettings.NONE);
        assertThat(t.spec()).isEqualTo(SPEC);
        byte[] v2WithSettings = v3.clone();
        v2WithSettings[0] = 2;
        assertThatThrownBy(() -> TableCodec.decode(7, v2WithSettings)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("3 bytes after the descriptor");
    }

    @Test
    void shouldRefuseDamagedSettings() {
        byte[] v3 = v3(TableCodec.encode(SPEC, CREATED, List.of(), TableSettings.NONE));
        byte[] badFlag = v3.clone();
        badFlag[v3.length - 3] = 2;
        assertThatThrownBy(() -> TableCodec.decode(7, badFlag)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("keyspace 7").hasMessageContaining("time-to-live flag 2");
        byte[] tagTwice = v3(TableCodec.encode(SPEC, CREATED, List.of(), new TableSettings(null, new TreeMap<>(Map.of("a", "1")))));
        // One tag "a" = "1" (u16 length 1, 'a', u16 length 1, '1'), its count set to two and the tag repeated.
        byte[] twice = Arrays.copyOf(tagTwice, tagTwice.length + 6);
        System.arraycopy(tagTwice, tagTwice.length - 6, twice, tagTwice.length, 6);
        twice[tagTwice.length - 7] = 2;
        assertThatThrownBy(() -> TableCodec.decode(7, twice)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("tag a twice");
        byte[] cut = Arrays.copyOf(tagTwice, tagTwice.length - 1);
        assertThatThrownBy(() -> TableCodec.decode(7, cut)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("malformed descriptor");
    }

    @Test
    void shouldRoundTripTheStreamAndReadAVersionThreeDescriptorAsOneWithoutAStream() {
        TableSettings enabled = TableSettings.NONE.withStream(new StreamState(true, dev.lacuna.StreamViewType.OLD_IMAGE, 1234));
        byte[] bytes = TableCodec.encode(SPEC, CREATED, List.of(), enabled);
        assertThat(TableCodec.decode(7, bytes).table().settings()).isEqualTo(enabled);
        TableSettings disabled = TableSettings.NONE.withStream(
                new StreamState(false, dev.lacuna.StreamViewType.OLD_IMAGE, 1234)); // label and view type kept
        assertThat(TableCodec.decode(7, TableCodec.encode(SPEC, CREATED, List.of(), disabled)).table().settings())
                .isEqualTo(disabled);

        byte[] v3 = v3(TableCodec.encode(SPEC, CREATED, List.of(), TableSettings.NONE));
        TableSchema old = TableCodec.decode(7, v3).table();
        assertThat(old.settings()).isEqualTo(TableSettings.NONE);
        assertThat(old.settings().stream()).isEqualTo(StreamState.NONE);
        byte[] v3WithStream = bytes.clone();
        v3WithStream[0] = 3;
        assertThatThrownBy(() -> TableCodec.decode(7, v3WithStream)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining(STREAM_BYTES + " bytes after the descriptor");
    }

    @Test
    void shouldRefuseADamagedStream() {
        byte[] bytes = TableCodec.encode(SPEC, CREATED, List.of(),
                TableSettings.NONE.withStream(new StreamState(true, dev.lacuna.StreamViewType.KEYS_ONLY, 99)));
        byte[] badFlag = bytes.clone();
        badFlag[bytes.length - STREAM_BYTES] = 2;
        assertThatThrownBy(() -> TableCodec.decode(7, badFlag)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("stream flag 2");
        byte[] badView = bytes.clone();
        badView[bytes.length - STREAM_BYTES + 1] = 4;
        assertThatThrownBy(() -> TableCodec.decode(7, badView)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("stream view type 4");
        byte[] noViewWhenEnabled = bytes.clone();
        noViewWhenEnabled[bytes.length - STREAM_BYTES + 1] = (byte) 0xFF;
        assertThatThrownBy(() -> TableCodec.decode(7, noViewWhenEnabled)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("an enabled stream without a view type");
        byte[] viewWhenDisabledV4 = bytes.clone(); // version 4 kept no view type for a disabled stream
        viewWhenDisabledV4[0] = 4;
        viewWhenDisabledV4[bytes.length - STREAM_BYTES] = 0;
        assertThatThrownBy(() -> TableCodec.decode(7, viewWhenDisabledV4)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("on a disabled stream (version 4)");
        byte[] viewWithoutStream = TableCodec.encode(SPEC, CREATED, List.of(), TableSettings.NONE);
        viewWithoutStream[viewWithoutStream.length - STREAM_BYTES + 1] = 2;
        assertThatThrownBy(() -> TableCodec.decode(7, viewWithoutStream)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("of a table that never had one");
    }

    @Test
    void shouldKeepADisabledStreamsViewTypeAndReadAVersionFourDisabledStreamWithoutOne() {
        TableSettings disabled = TableSettings.NONE.withStream(
                new StreamState(false, dev.lacuna.StreamViewType.NEW_IMAGE, 1234));
        byte[] bytes = TableCodec.encode(SPEC, CREATED, List.of(), disabled);
        assertThat(bytes[0]).isEqualTo((byte) 5);
        assertThat(TableCodec.decode(7, bytes).table().settings()).isEqualTo(disabled);

        byte[] v4 = bytes.clone(); // what version 4 wrote for the same stream: no view type
        v4[0] = 4;
        v4[bytes.length - STREAM_BYTES + 1] = (byte) 0xFF;
        assertThat(TableCodec.decode(7, v4).table().settings().stream())
                .isEqualTo(new StreamState(false, null, 1234));
    }
}
