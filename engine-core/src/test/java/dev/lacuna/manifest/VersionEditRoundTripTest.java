package dev.lacuna.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The fields an open restores the store's counters and consumers from survive encoding: how far the log was
 * durable, the next keyspace id and tree, and the consumers' checkpoints (PIT survivors: their getters could
 * return nothing and no manifest test noticed).
 */
class VersionEditRoundTripTest {

    @Test
    void shouldDecodeTheLogsDurableLsnTheNextIdsAndTheCheckpointsAsEncoded() {
        VersionEdit edit = new VersionEdit().logDurable(123_456_789_012L).nextIds(7, 300)
                .checkpoint("index-a", 42).checkpoint("stream", 1L << 40);
        VersionEdit decoded = VersionEdit.decode(edit.encode(), "MANIFEST-000001", 0);
        assertThat(decoded.logDurable()).isEqualTo(123_456_789_012L);
        assertThat(decoded.nextIds()).containsExactly(7, 300);
        assertThat(decoded.checkpoints()).containsExactlyInAnyOrderEntriesOf(
                Map.of("index-a", 42L, "stream", 1L << 40));
    }

    @Test
    void shouldLeaveUnsetFieldsUnset() {
        VersionEdit decoded = VersionEdit.decode(new VersionEdit().lastSequence(5).encode(), "MANIFEST-000001", 0);
        assertThat(decoded.logDurable()).isNull();
        assertThat(decoded.nextIds()).isNull();
        assertThat(decoded.checkpoints()).isEmpty();
    }
}
