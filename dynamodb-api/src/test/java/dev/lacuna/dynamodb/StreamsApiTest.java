package dev.lacuna.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import dev.lacuna.OperationType;
import dev.lacuna.StreamIdentity;
import dev.lacuna.StreamRecord;
import dev.lacuna.StreamViewType;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.Record;

/** Lacuna's stream records as DynamoDB Streams' {@code Record}s: the fields DynamoDB sets, the time-to-live identity. */
class StreamsApiTest {
    private static StreamRecord removal(StreamIdentity who) {
        Item old = Item.builder().s("pk", "a").n("v", "1").build();
        return new StreamRecord("000000000000000000420001", 42, OperationType.REMOVE, "shardId-00000001764633600000-00000002",
                Instant.parse("2026-12-02T00:00:01.987Z"), Map.of("pk", AttributeValue.s("a")), null, old, 12,
                StreamViewType.NEW_AND_OLD_IMAGES, who);
    }

    @Test
    void shouldMapARecordAsDynamoDbStreamsWritesOne() {
        Record r = StreamsApi.record(removal(null));

        assertThat(r.eventName()).hasToString("REMOVE");
        assertThat(r.eventVersion()).isEqualTo("1.1");
        assertThat(r.eventSource()).isEqualTo("aws:dynamodb");
        assertThat(r.awsRegion()).isEqualTo(StreamsApi.REGION);
        assertThat(r.eventID()).matches("[0-9a-f]{32}").isEqualTo(StreamsApi.record(removal(null)).eventID());
        assertThat(r.userIdentity()).isNull();
        assertThat(r.dynamodb().sequenceNumber()).isEqualTo("000000000000000000420001");
        assertThat(r.dynamodb().approximateCreationDateTime()).isEqualTo(Instant.parse("2026-12-02T00:00:01Z"));
        assertThat(r.dynamodb().keys()).isEqualTo(Map.of("pk",
                software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("a")));
        assertThat(r.dynamodb().hasNewImage()).isFalse();
        assertThat(r.dynamodb().oldImage()).containsKeys("pk", "v");
        assertThat(r.dynamodb().sizeBytes()).isEqualTo(12);
        assertThat(r.dynamodb().streamViewTypeAsString()).isEqualTo("NEW_AND_OLD_IMAGES");
    }

    @Test
    void shouldNameTheServiceAsTheAuthorOfATimeToLiveDeletion() {
        Record r = StreamsApi.record(removal(StreamIdentity.TIME_TO_LIVE));

        assertThat(r.userIdentity().type()).isEqualTo("Service");
        assertThat(r.userIdentity().principalId()).isEqualTo("dynamodb.amazonaws.com");
    }
}
