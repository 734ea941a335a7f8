package dev.lacuna.dynamodb;

import dev.lacuna.Database;
import dev.lacuna.Item;
import dev.lacuna.Page;
import dev.lacuna.PageRequest;
import dev.lacuna.Query;
import dev.lacuna.Scan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * Query and Scan between the SDK's shapes and Lacuna's: one page per call, with {@code LastEvaluatedKey} only while
 * there is more to read, so the SDK's paginators ({@code queryPaginator}, {@code scanPaginator}) stop where they
 * should. {@code KeyConditions}, {@code QueryFilter} and {@code ScanFilter} are rewritten by {@link Legacy}.
 */
final class Reads {
    private final Database db;

    Reads(Database db) {
        this.db = db;
    }

    QueryResponse query(QueryRequest r) {
        String table = Errors.required(r.tableName(), "tableName");
        Query probe = new Query("-");
        String keyCondition = Legacy.conditions(r.keyConditionExpression(),
                r.hasKeyConditions() ? r.keyConditions() : null, null, probe, "KeyConditions",
                "KeyConditionExpression", "lgk");
        if (keyCondition == null) {
            throw Errors.validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in"
                    + " the request.");
        }
        Query q = new Query(keyCondition).names(probe.names()).values(probe.values());
        page(q, r.indexName(), r.expressionAttributeNames(), r.expressionAttributeValues(), r.limit(),
                r.hasExclusiveStartKey() ? r.exclusiveStartKey() : null, r.selectAsString());
        String filter = Legacy.conditions(r.filterExpression(), r.hasQueryFilter() ? r.queryFilter() : null,
                r.conditionalOperatorAsString(), q, "QueryFilter", "FilterExpression", "lgf");
        finish(q, filter, r.projectionExpression(), r.hasAttributesToGet() ? r.attributesToGet() : null);
        if (r.scanIndexForward() != null) {
            q.scanIndexForward(r.scanIndexForward());
        }
        if (r.consistentRead() != null) {
            q.consistentRead(r.consistentRead());
        }
        Page page = db.query(table, q);
        QueryResponse.Builder b = QueryResponse.builder().count(page.count()).scannedCount(page.scannedCount())
                .lastEvaluatedKey(lastKey(page));
        List<Map<String, AttributeValue>> items = items(page);
        if (!q.isCount()) {
            b.items(items);
        }
        if (Capacity.asked(r.returnConsumedCapacityAsString())) {
            b.consumedCapacity(Capacity.read(table, items, Boolean.TRUE.equals(r.consistentRead())));
        }
        return b.build();
    }

    ScanResponse scan(ScanRequest r) {
        String table = Errors.required(r.tableName(), "tableName");
        Scan s = new Scan();
        page(s, r.indexName(), r.expressionAttributeNames(), r.expressionAttributeValues(), r.limit(),
                r.hasExclusiveStartKey() ? r.exclusiveStartKey() : null, r.selectAsString());
        String filter = Legacy.conditions(r.filterExpression(), r.hasScanFilter() ? r.scanFilter() : null,
                r.conditionalOperatorAsString(), s, "ScanFilter", "FilterExpression", "lgf");
        finish(s, filter, r.projectionExpression(), r.hasAttributesToGet() ? r.attributesToGet() : null);
        if (r.segment() != null || r.totalSegments() != null) {
            if (r.totalSegments() == null) {
                throw Errors.validation("The TotalSegments parameter is required but was not present in the request"
                        + " when Segment parameter is present");
            }
            if (r.segment() == null) {
                throw Errors.validation("The Segment parameter is required but was not present in the request when"
                        + " parameter TotalSegments is present");
            }
            if (r.totalSegments() < 1 || r.totalSegments() > Scan.MAX_SEGMENTS) {
                throw Errors.constraint(r.totalSegments(), "totalSegments", r.totalSegments() < 1
                        ? "Member must have value greater than or equal to 1"
                        : "Member must have value less than or equal to " + Scan.MAX_SEGMENTS);
            }
            if (r.segment() < 0 || r.segment() >= r.totalSegments()) {
                throw Errors.validation("The Segment parameter is zero-based and must be less than parameter"
                        + " TotalSegments: Segment: " + r.segment() + " is not less than TotalSegments: "
                        + r.totalSegments());
            }
            s.segment(r.segment(), r.totalSegments());
        }
        Page page = db.scan(table, s);
        ScanResponse.Builder b = ScanResponse.builder().count(page.count()).scannedCount(page.scannedCount())
                .lastEvaluatedKey(lastKey(page));
        List<Map<String, AttributeValue>> items = items(page);
        if (!s.isCount()) {
            b.items(items);
        }
        if (Capacity.asked(r.returnConsumedCapacityAsString())) {
            b.consumedCapacity(Capacity.read(table, items, Boolean.TRUE.equals(r.consistentRead())));
        }
        return b.build();
    }

    private static void page(PageRequest<?> p, String index, Map<String, String> names,
                             Map<String, AttributeValue> values, Integer limit,
                             Map<String, AttributeValue> startKey, String select) {
        if (index != null) {
            p.index(index);
        }
        Items.placeholders(p, names, values);
        if (limit != null) {
            if (limit < 1) {
                throw Errors.constraint(limit, "limit", "Member must have value greater than or equal to 1");
            }
            p.limit(limit);
        }
        if (startKey != null) {
            p.exclusiveStartKey(Values.lacunaMap(startKey));
        }
        Select s = Errors.enumValue(select, "select", Select.class);
        if (s != null) {
            p.select(dev.lacuna.Select.valueOf(s.name()));
        }
    }

    private static void finish(PageRequest<?> p, String filter, String projection, List<String> attributesToGet) {
        if (filter != null) {
            p.filter(filter);
        }
        String projected = Legacy.projection(projection, attributesToGet, p);
        if (projected != null) {
            p.projection(projected);
        }
    }

    private static List<Map<String, AttributeValue>> items(Page page) {
        List<Map<String, AttributeValue>> items = new ArrayList<>(page.items().size());
        for (Item item : page.items()) {
            items.add(Values.sdk(item));
        }
        return items;
    }

    private static Map<String, AttributeValue> lastKey(Page page) {
        return page.lastEvaluatedKey() == null ? null : Values.sdkMap(page.lastEvaluatedKey());
    }
}
