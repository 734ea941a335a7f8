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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ExpiredIteratorException;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * DynamoDB Streams' iterator lifetime and error shapes, in-process and over HTTP alike: "A shard iterator expires 15
 * minutes after it is returned to the requester" (by the database's clock, here a manual one), with
 * {@code ExpiredIteratorException} (HTTP 400); and every Streams error names the service as the SDK's own DynamoDB
 * Streams client does ("DynamoDbStreams", not the DynamoDB client's "DynamoDb").
 */
class StreamsExpiryTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z"));

    @Test
    void shouldExpireIteratorsFifteenMinutesAfterTheyWereHandedOutAndNameTheStreamsService() {
        try (Database db = Database.open(Path.of("/db"), DatabaseOptions.builder().vfs(new MemVfs()).clock(clock)
                .timeToLiveSweepInterval(Duration.ofDays(1)).build());
             DynamoDbEndpoint endpoint = DynamoDbEndpoint.start(db, EndpointOptions.builder().port(0).build());
             DynamoDbStreamsClient http = Target.sdkStreamsClient(endpoint.uri(), "AKIDLACUNATEST", "secret")) {
            DynamoDbClient dynamo = LacunaDynamoDbClient.create(db);
            String arn = dynamo.createTable(b -> b.tableName("Events")
                    .attributeDefinitions(ConformanceTest.def("pk", ScalarAttributeType.S))
                    .keySchema(ConformanceTest.key("pk", KeyType.HASH))
                    .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.KEYS_ONLY)))
                    .tableDescription().latestStreamArn();
            dynamo.putItem(b -> b.tableName("Events").item(Map.of("pk", AttributeValue.fromS("a"))));
            String shard = db.describeStream(db.describeTable("Events").latestStreamArn()).shards().get(0).shardId();

            for (DynamoDbStreamsClient streams : List.of(LacunaDynamoDbStreamsClient.create(db), http)) {
                String it = streams.getShardIterator(b -> b.streamArn(arn).shardId(shard)
                        .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
                clock.advance(Duration.ofMinutes(15));
                GetRecordsResponse page = streams.getRecords(b -> b.shardIterator(it)); // 15 minutes: still valid
                assertThat(page.records()).hasSize(1);

                clock.advance(Duration.ofSeconds(1));
                assertThatThrownBy(() -> streams.getRecords(b -> b.shardIterator(it)))
                        .isInstanceOfSatisfying(ExpiredIteratorException.class, e -> {
                            assertThat(e.statusCode()).isEqualTo(400);
                            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ExpiredIteratorException");
                            assertThat(e.awsErrorDetails().errorMessage())
                                    .isEqualTo("The provided iterator exceeds the maximum age allowed.");
                            assertThat(e.awsErrorDetails().serviceName()).isEqualTo("DynamoDbStreams");
                        });
                // The iterator GetRecords returned has a lifetime of its own, from when it was returned.
                assertThat(streams.getRecords(b -> b.shardIterator(page.nextShardIterator())).records()).isEmpty();

                assertThatThrownBy(() -> streams.getRecords(b -> b.shardIterator("nonsense")))
                        .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
                            assertThat(e.awsErrorDetails().serviceName()).isEqualTo("DynamoDbStreams");
                        });
                assertThatThrownBy(() -> streams.describeStream(b -> b.streamArn(arn + "0")))
                        .isInstanceOfSatisfying(ResourceNotFoundException.class,
                                e -> assertThat(e.awsErrorDetails().serviceName()).isEqualTo("DynamoDbStreams"));
            }
        }
    }
}
