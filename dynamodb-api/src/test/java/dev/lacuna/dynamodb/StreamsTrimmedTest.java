package dev.lacuna.dynamodb;

import dev.lacuna.vfs.testing.ManualClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.TrimmedDataAccessException;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * An iterator that the stream's retention passed is refused with DynamoDB Streams' {@code TrimmedDataAccessException}
 * (HTTP 400), in-process and over HTTP, and TRIM_HORIZON then starts at what the stream still holds.
 */
class StreamsTrimmedTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z"));

    @Test
    void shouldAnswerTrimmedDataAccessExceptionPastTheRetention() {
        try (Database db = Database.open(Path.of("/db"), DatabaseOptions.builder().vfs(new MemVfs()).clock(clock)
                .streamRetention(Duration.ofHours(1)).timeToLiveSweepInterval(Duration.ofDays(1)).build());
             DynamoDbEndpoint endpoint = DynamoDbEndpoint.start(db, EndpointOptions.builder().port(0).build());
             DynamoDbStreamsClient http = Target.sdkStreamsClient(endpoint.uri(), "AKIDLACUNATEST", "secret")) {
            DynamoDbClient dynamo = LacunaDynamoDbClient.create(db);
            String arn = dynamo.createTable(b -> b.tableName("Events")
                    .attributeDefinitions(ConformanceTest.def("pk", ScalarAttributeType.S))
                    .keySchema(ConformanceTest.key("pk", KeyType.HASH))
                    .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.KEYS_ONLY)))
                    .tableDescription().latestStreamArn();
            dynamo.putItem(b -> b.tableName("Events").item(Map.of("pk", AttributeValue.fromS("old"))));
            List<DynamoDbStreamsClient> both = List.of(LacunaDynamoDbStreamsClient.create(db), http);
            List<String> old = horizon(http, arn);
            assertThat(keys(http, old)).containsExactly("old");

            clock.advance(Duration.ofMinutes(61));
            dynamo.putItem(b -> b.tableName("Events").item(Map.of("pk", AttributeValue.fromS("new"))));
            db.flush(); // applies the retention: "old" is dropped

            for (DynamoDbStreamsClient streams : both) {
                for (String it : old) {
                    assertThatThrownBy(() -> streams.getRecords(b -> b.shardIterator(it)))
                            .isInstanceOfSatisfying(TrimmedDataAccessException.class, e -> {
                                assertThat(e.statusCode()).isEqualTo(400);
                                assertThat(e.awsErrorDetails().errorCode()).isEqualTo("TrimmedDataAccessException");
                            });
                }
                assertThat(keys(streams, horizon(streams, arn))).containsExactly("new");
            }
        }
    }

    /** A TRIM_HORIZON iterator of every shard. */
    private static List<String> horizon(DynamoDbStreamsClient streams, String arn) {
        List<String> out = new ArrayList<>();
        for (Shard shard : streams.describeStream(b -> b.streamArn(arn)).streamDescription().shards()) {
            out.add(streams.getShardIterator(b -> b.streamArn(arn).shardId(shard.shardId())
                    .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator());
        }
        return out;
    }

    /** The keys of the records one GetRecords call per iterator returns. */
    private static List<String> keys(DynamoDbStreamsClient streams, List<String> iterators) {
        List<String> out = new ArrayList<>();
        for (String it : iterators) {
            for (Record r : streams.getRecords(b -> b.shardIterator(it)).records()) {
                out.add(r.dynamodb().keys().get("pk").s());
            }
        }
        return out;
    }
}
