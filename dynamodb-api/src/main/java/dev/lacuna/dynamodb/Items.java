package dev.lacuna.dynamodb;

import dev.lacuna.Database;
import dev.lacuna.DeleteItem;
import dev.lacuna.ExpressionRequest;
import dev.lacuna.GetItem;
import dev.lacuna.Item;
import dev.lacuna.PutItem;
import dev.lacuna.ReturnValues;
import dev.lacuna.UpdateItem;
import dev.lacuna.WriteRequest;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The single-item operations (GetItem, PutItem, UpdateItem, DeleteItem) between the SDK's shapes and Lacuna's
 * requests. The legacy parameters ({@code Expected}, {@code AttributeUpdates}, {@code AttributesToGet}) are
 * rewritten into expressions by {@link Legacy} first.
 */
final class Items {
    private final Database db;
    private final Tables tables;
    private final CollectionMetrics metrics;

    Items(Database db, Tables tables) {
        this.db = db;
        this.tables = tables;
        this.metrics = new CollectionMetrics(db, tables);
    }

    GetItemResponse get(GetItemRequest r) {
        String table = Errors.required(r.tableName(), "tableName");
        GetItem get = new GetItem(Values.key(Errors.required(r.key(), "key"), tables.spec(table)));
        placeholders(get, r.expressionAttributeNames(), Map.of());
        String projection = Legacy.projection(r.projectionExpression(), r.hasAttributesToGet() ? r.attributesToGet()
                : null, get);
        if (projection != null) {
            get.projection(projection);
        }
        Map<String, AttributeValue> item = db.getItem(table, get).map(Values::sdk).orElse(null);
        GetItemResponse.Builder b = GetItemResponse.builder().item(item);
        if (Capacity.asked(r.returnConsumedCapacityAsString())) {
            b.consumedCapacity(Capacity.read(table, item == null ? List.of() : List.of(item),
                    Boolean.TRUE.equals(r.consistentRead())));
        }
        return b.build();
    }

    PutItemResponse put(PutItemRequest r) {
        String table = Errors.required(r.tableName(), "tableName");
        PutItem put = new PutItem(Values.item(Errors.required(r.item(), "item")));
        write(put, r.conditionExpression(), r.expressionAttributeNames(), r.expressionAttributeValues(),
                r.returnValuesAsString(), r.returnValuesOnConditionCheckFailureAsString());
        Legacy.expected(put, r.hasExpected() ? r.expected() : null, r.conditionalOperatorAsString());
        boolean askedMetrics = CollectionMetrics.asked(r.returnItemCollectionMetricsAsString());
        Optional<Item> old = db.putItem(table, put);
        PutItemResponse.Builder b = PutItemResponse.builder().attributes(old.map(Values::sdk).orElse(null));
        if (Capacity.asked(r.returnConsumedCapacityAsString())) {
            b.consumedCapacity(Capacity.write(table, r.item(), false));
        }
        if (askedMetrics) {
            b.itemCollectionMetrics(metrics.of(table, r.item()));
        }
        return b.build();
    }

    UpdateItemResponse update(UpdateItemRequest r) {
        String table = Errors.required(r.tableName(), "tableName");
        UpdateItem update = new UpdateItem(Values.key(Errors.required(r.key(), "key"), tables.spec(table)));
        write(update, r.conditionExpression(), r.expressionAttributeNames(), r.expressionAttributeValues(),
                r.returnValuesAsString(), r.returnValuesOnConditionCheckFailureAsString());
        String expression = Legacy.updates(r.updateExpression(), r.hasAttributeUpdates() ? r.attributeUpdates() : null,
                update);
        if (expression != null) {
            update.update(expression);
        }
        Legacy.expected(update, r.hasExpected() ? r.expected() : null, r.conditionalOperatorAsString());
        boolean askedMetrics = CollectionMetrics.asked(r.returnItemCollectionMetricsAsString());
        Optional<Item> result = db.updateItem(table, update);
        UpdateItemResponse.Builder b = UpdateItemResponse.builder().attributes(result.map(Values::sdk).orElse(null));
        if (Capacity.asked(r.returnConsumedCapacityAsString())) {
            b.consumedCapacity(Capacity.write(table, r.key(), false));
        }
        if (askedMetrics) {
            b.itemCollectionMetrics(metrics.of(table, r.key()));
        }
        return b.build();
    }

    DeleteItemResponse delete(DeleteItemRequest r) {
        String table = Errors.required(r.tableName(), "tableName");
        DeleteItem delete = new DeleteItem(Values.key(Errors.required(r.key(), "key"), tables.spec(table)));
        write(delete, r.conditionExpression(), r.expressionAttributeNames(), r.expressionAttributeValues(),
                r.returnValuesAsString(), r.returnValuesOnConditionCheckFailureAsString());
        Legacy.expected(delete, r.hasExpected() ? r.expected() : null, r.conditionalOperatorAsString());
        boolean askedMetrics = CollectionMetrics.asked(r.returnItemCollectionMetricsAsString());
        Optional<Item> old = db.deleteItem(table, delete);
        DeleteItemResponse.Builder b = DeleteItemResponse.builder().attributes(old.map(Values::sdk).orElse(null));
        if (Capacity.asked(r.returnConsumedCapacityAsString())) {
            b.consumedCapacity(Capacity.write(table, r.key(), false));
        }
        if (askedMetrics) {
            b.itemCollectionMetrics(metrics.of(table, r.key()));
        }
        return b.build();
    }

    /** What the three writes share: condition, placeholders, what they return, what a failed condition reports. */
    private static void write(WriteRequest<?> w, String condition, Map<String, String> names,
                              Map<String, AttributeValue> values, String returnValues, String onFailure) {
        if (condition != null) {
            w.condition(condition);
        }
        placeholders(w, names, values);
        ReturnValue rv = Errors.enumValue(returnValues, "returnValues", ReturnValue.class);
        if (rv != null) {
            w.returnValues(ReturnValues.valueOf(rv.name()));
        }
        w.returnItemOnConditionFailure(returnOnFailure(onFailure));
    }

    /** Whether {@code ReturnValuesOnConditionCheckFailure} asks for the item ({@code ALL_OLD}). */
    static boolean returnOnFailure(String raw) {
        ReturnValuesOnConditionCheckFailure v = Errors.enumValue(raw, "returnValuesOnConditionCheckFailure",
                ReturnValuesOnConditionCheckFailure.class);
        return v == ReturnValuesOnConditionCheckFailure.ALL_OLD;
    }

    /** Copies a request's expression attribute names and values onto a Lacuna request. */
    static void placeholders(ExpressionRequest<?> request, Map<String, String> names,
                             Map<String, AttributeValue> values) {
        if (names != null) {
            request.names(names);
        }
        if (values != null) {
            request.values(Values.lacunaMap(values));
        }
    }
}
