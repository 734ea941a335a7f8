package dev.lacuna.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.IndexDescription;
import dev.lacuna.IndexSpec;
import dev.lacuna.IndexStatus;
import dev.lacuna.KeyAttribute;
import dev.lacuna.TableSpec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexDescription;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * DescribeTable's index states, from descriptions the engine only reaches in passing (a backfill under way) or on a
 * failure a conformance test cannot cause: each of Lacuna's {@link IndexStatus} as DynamoDB's {@code IndexStatus},
 * in-process and through the JSON the endpoint writes.
 */
class TablesDescribeTest {

    private static TableDescription describe(IndexStatus status, long done, long total) {
        TableSpec spec = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                .index(IndexSpec.global("ByAssignee", new KeyAttribute("assignee", AttributeValue.Type.S), null))
                .build();
        IndexDescription index = new IndexDescription("ByAssignee", 7, status, done, total, 10, 0, 0);
        return Tables.describe(new dev.lacuna.TableDescription(spec, 5, "ACTIVE", Instant.EPOCH, List.of(index)), Tables.NO_SIZE);
    }

    private static GlobalSecondaryIndexDescription index(TableDescription t) {
        assertThat(t.globalSecondaryIndexes()).hasSize(1);
        return t.globalSecondaryIndexes().get(0);
    }

    /** The description as a client of the endpoint reads it: written to JSON, read back by the SDK's model. */
    private static TableDescription overTheWire(TableDescription t) {
        SdkJson json = new SdkJson();
        byte[] out = json.write(t);
        return (TableDescription) json.read(out, SdkJson.pojo(TableDescription::builder).get());
    }

    @Test
    void shouldReportABackfillingIndexAsCreatingAndBackfilling() {
        for (TableDescription t : List.of(describe(IndexStatus.CREATING, 3, 10),
                overTheWire(describe(IndexStatus.CREATING, 3, 10)))) {
            assertThat(index(t).indexStatus())
                    .isEqualTo(software.amazon.awssdk.services.dynamodb.model.IndexStatus.CREATING);
            assertThat(index(t).backfilling()).isTrue();
        }
    }

    @Test
    void shouldReportABuiltIndexAsActiveWithoutBackfilling() {
        for (TableDescription t : List.of(describe(IndexStatus.ACTIVE, 10, 10),
                overTheWire(describe(IndexStatus.ACTIVE, 10, 10)))) {
            assertThat(index(t).indexStatus())
                    .isEqualTo(software.amazon.awssdk.services.dynamodb.model.IndexStatus.ACTIVE);
            assertThat(index(t).backfilling()).isNull();
        }
    }

    @Test
    void shouldReportAFailedIndexAsFailedNeverAsActive() {
        TableDescription t = describe(IndexStatus.FAILED, 3, 10);
        String json = new String(new SdkJson().write(t), StandardCharsets.UTF_8);
        assertThat(json).contains("\"IndexStatus\":\"FAILED\"");
        for (TableDescription d : List.of(t, overTheWire(t))) {
            // Outside DynamoDB's four statuses: the SDK's stand-in for a value it does not know, with the raw value.
            assertThat(index(d).indexStatus())
                    .isEqualTo(software.amazon.awssdk.services.dynamodb.model.IndexStatus.UNKNOWN_TO_SDK_VERSION);
            assertThat(index(d).indexStatusAsString()).isEqualTo("FAILED");
            assertThat(index(d).backfilling()).isNull();
            assertThat(d.tableStatus()).isEqualTo(software.amazon.awssdk.services.dynamodb.model.TableStatus.ACTIVE);
        }
    }
}
