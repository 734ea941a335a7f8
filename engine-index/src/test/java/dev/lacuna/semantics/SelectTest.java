package dev.lacuna.semantics;

import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Page;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.Scan;
import dev.lacuna.Select;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.ValidationException;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code Select} and projections on indexes, as DynamoDB documents them: a local index that does not project
 * what a read needs fetches the items from the table; a global one cannot, so {@code ALL_ATTRIBUTES} is
 * refused there and unprojected attributes are missing; and the combinations DynamoDB refuses are refused.
 */
class SelectTest {
    private Database db;
    private Table t;

    @BeforeEach
    void open() {
        db = Database.open(Path.of("/db"), DatabaseOptions.builder().vfs(new MemVfs()).build());
        db.createTable(TableSpec.builder("Orders").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.S)
                .index(IndexSpec.local("ByTotal", KeyAttribute.n("total")).withProjection(IndexSpec.Projection.KEYS_ONLY))
                .index(IndexSpec.global("ByStatus", KeyAttribute.s("status"), KeyAttribute.s("sk"))
                        .withProjection(IndexSpec.Projection.KEYS_ONLY))
                .build());
        t = db.table("Orders");
        for (int i = 1; i <= 3; i++) {
            t.putItem(new PutItem(Item.builder().s("pk", "c").s("sk", "o" + i).n("total", i * 10)
                    .s("status", "OPEN").s("note", "order " + i).build()));
        }
    }

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    void shouldFetchEveryAttributeFromTheTableForALocalIndexThatDoesNotProjectThem() {
        Page page = t.query(local().select(Select.ALL_ATTRIBUTES));
        assertThat(page.items()).extracting(i -> i.get("note")).containsExactly(s("order 1"), s("order 2"), s("order 3"));
    }

    @Test
    void shouldFetchAnUnprojectedAttributeAProjectionNamesOnALocalIndex() {
        Page page = t.query(local().projection("sk, note"));
        assertThat(page.items()).containsExactly(Item.builder().s("sk", "o1").s("note", "order 1").build(),
                Item.builder().s("sk", "o2").s("note", "order 2").build(),
                Item.builder().s("sk", "o3").s("note", "order 3").build());
    }

    @Test
    void shouldFilterOnAnUnprojectedAttributeOfALocalIndex() {
        Page page = t.query(local().filter("note = :n").value(":n", s("order 2")));
        assertThat(page.count()).isEqualTo(1);
        assertThat(page.scannedCount()).isEqualTo(3);
    }

    @Test
    void shouldReturnOnlyProjectedAttributesByDefaultOnAnIndex() {
        Page page = t.query(local());
        assertThat(page.items().get(0).attributes().keySet()).containsExactlyInAnyOrder("pk", "sk", "total");
        assertThat(t.query(local().select(Select.ALL_PROJECTED_ATTRIBUTES)).items()).isEqualTo(page.items());
    }

    @Test
    void shouldRefuseAllAttributesOnAGlobalIndexThatDoesNotProjectThem() {
        assertThatThrownBy(() -> t.query(global().select(Select.ALL_ATTRIBUTES)))
                .isInstanceOf(ValidationException.class)
                .hasMessage("One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported "
                        + "for global secondary index ByStatus because its projection type is not ALL");
    }

    @Test
    void shouldLeaveOutAnUnprojectedAttributeOfAGlobalIndex() {
        Page page = t.query(global().projection("sk, note"));
        assertThat(page.items()).extracting(Item::attributes).allSatisfy(a -> assertThat(a).containsOnlyKeys("sk"));
    }

    @Test
    void shouldRefuseTheCombinationsDynamoDbRefuses() {
        assertThatThrownBy(() -> t.query(new Query("pk = :p").value(":p", s("c")).select(Select.ALL_PROJECTED_ATTRIBUTES)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("only when Querying using an IndexName");
        assertThatThrownBy(() -> t.query(local().select(Select.SPECIFIC_ATTRIBUTES)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("SPECIFIC_ATTRIBUTES");
        assertThatThrownBy(() -> t.query(local().select(Select.ALL_ATTRIBUTES).projection("note")))
                .isInstanceOf(ValidationException.class)
                .hasMessage("Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES");
        assertThatThrownBy(() -> t.query(local().count().projection("note")))
                .isInstanceOf(ValidationException.class)
                .hasMessage("Cannot specify the ProjectionExpression when choosing to get only the COUNT");
        assertThat(t.query(local().select(Select.SPECIFIC_ATTRIBUTES).projection("#t").name("#t", "total")).items())
                .extracting(i -> i.get("total")).containsExactly(n(10), n(20), n(30));
    }

    @Test
    void shouldFetchFromTheTableWhenScanningALocalIndexForAllAttributes() {
        Page page = t.scan(new Scan().index("ByTotal").select(Select.ALL_ATTRIBUTES));
        assertThat(page.items()).extracting(i -> i.get("note")).containsExactlyInAnyOrder(
                s("order 1"), s("order 2"), s("order 3"));
    }

    @Test
    void shouldWordAStartKeyOutsideItsSegmentAsDynamoDbDoes() {
        // Every item has one partition key, so one of two segments holds them all: start the other at one.
        int holder = t.scan(new Scan().segment(0, 2)).items().isEmpty() ? 1 : 0;
        Item item = t.scan(new Scan().segment(holder, 2)).items().get(0);
        java.util.Map<String, AttributeValue> key = java.util.Map.of("pk", item.get("pk"), "sk", item.get("sk"));
        assertThatThrownBy(() -> t.scan(new Scan().segment(1 - holder, 2).exclusiveStartKey(key)))
                .isInstanceOf(ValidationException.class)
                .hasMessage("The provided Exclusive start key does not map to the provided Segment and TotalSegments "
                        + "values.");
    }

    private static Query local() {
        return new Query("pk = :p").index("ByTotal").value(":p", s("c"));
    }

    private static Query global() {
        return new Query("#s = :o").index("ByStatus").name("#s", "status").value(":o", s("OPEN"))
                .readYourWrites(Duration.ofSeconds(30));
    }
}
