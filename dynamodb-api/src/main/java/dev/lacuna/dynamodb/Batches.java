package dev.lacuna.dynamodb;

import dev.lacuna.BatchGetItem;
import dev.lacuna.BatchGetResult;
import dev.lacuna.BatchWriteItem;
import dev.lacuna.ConditionCheck;
import dev.lacuna.Database;
import dev.lacuna.DeleteItem;
import dev.lacuna.GetItem;
import dev.lacuna.Item;
import dev.lacuna.PutItem;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactGet;
import dev.lacuna.TransactWrite;
import dev.lacuna.UpdateItem;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.Get;
import software.amazon.awssdk.services.dynamodb.model.ItemCollectionMetrics;
import software.amazon.awssdk.services.dynamodb.model.ItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItem;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * BatchGetItem, BatchWriteItem, TransactGetItems and TransactWriteItems between the SDK's shapes and Lacuna's.
 * Lacuna applies a valid write batch whole (one log record), so {@code UnprocessedItems} is always empty; a read
 * batch leaves keys unprocessed only past 16 MB of items, and they come back in {@code UnprocessedKeys} with the
 * projection they were asked with.
 */
final class Batches {
    private final Database db;
    private final Tables tables;
    private final CollectionMetrics metrics;

    Batches(Database db, Tables tables) {
        this.db = db;
        this.tables = tables;
        this.metrics = new CollectionMetrics(db, tables);
    }

    BatchGetItemResponse batchGet(BatchGetItemRequest r) {
        if (!r.hasRequestItems() || r.requestItems().isEmpty()) {
            throw Errors.constraint(r.hasRequestItems() ? "{}" : null, "requestItems",
                    r.hasRequestItems() ? "Member must have length greater than or equal to 1" : "Member must not be null");
        }
        BatchGetItem batch = new BatchGetItem();
        Map<String, List<Map<String, AttributeValue>>> responses = new LinkedHashMap<>();
        for (Map.Entry<String, KeysAndAttributes> e : r.requestItems().entrySet()) {
            String table = e.getKey();
            KeysAndAttributes ka = e.getValue();
            TableSpec spec = tables.spec(table);
            responses.put(table, new ArrayList<>());
            for (Map<String, AttributeValue> key : ka.keys()) {
                GetItem get = new GetItem(Values.key(key, spec));
                Items.placeholders(get, ka.expressionAttributeNames(), null);
                String projection = Legacy.projection(ka.projectionExpression(),
                        ka.hasAttributesToGet() ? ka.attributesToGet() : null, get);
                if (projection != null) {
                    get.projection(projection);
                }
                batch.get(table, get);
            }
        }
        boolean askedCapacity = Capacity.asked(r.returnConsumedCapacityAsString());
        BatchGetResult result = db.batchGetItem(batch);
        List<Map.Entry<String, Map<String, AttributeValue>>> read = new ArrayList<>();
        result.responses().forEach((table, items) -> {
            List<Map<String, AttributeValue>> list = responses.computeIfAbsent(table, t -> new ArrayList<>());
            for (Item item : items) {
                list.add(Values.sdk(item));
                read.add(Map.entry(table, list.get(list.size() - 1)));
            }
        });
        Map<String, List<Map<String, AttributeValue>>> unprocessedKeys = new LinkedHashMap<>();
        for (TransactGet g : result.unprocessed()) {
            unprocessedKeys.computeIfAbsent(g.table(), t -> new ArrayList<>())
                    .add(Values.sdkMap(g.get().key().attributes()));
        }
        Map<String, KeysAndAttributes> unprocessed = new LinkedHashMap<>();
        unprocessedKeys.forEach((table, keys) -> unprocessed.put(table,
                r.requestItems().get(table).toBuilder().keys(keys).build()));
        BatchGetItemResponse.Builder b = BatchGetItemResponse.builder().responses(responses).unprocessedKeys(unprocessed);
        if (askedCapacity) {
            b.consumedCapacity(Capacity.reads(read,
                    table -> Boolean.TRUE.equals(r.requestItems().get(table).consistentRead()), false));
        }
        return b.build();
    }

    BatchWriteItemResponse batchWrite(BatchWriteItemRequest r) {
        if (!r.hasRequestItems() || r.requestItems().isEmpty()) {
            throw Errors.constraint(r.hasRequestItems() ? "{}" : null, "requestItems",
                    r.hasRequestItems() ? "Member must have length greater than or equal to 1" : "Member must not be null");
        }
        BatchWriteItem batch = new BatchWriteItem();
        List<Map.Entry<String, Map<String, AttributeValue>>> written = new ArrayList<>();
        for (Map.Entry<String, List<WriteRequest>> e : r.requestItems().entrySet()) {
            String table = e.getKey();
            TableSpec spec = tables.spec(table);
            for (WriteRequest w : e.getValue()) {
                if ((w.putRequest() == null) == (w.deleteRequest() == null)) {
                    throw Errors.validation("A WriteRequest must hold exactly one of PutRequest and DeleteRequest");
                }
                if (w.putRequest() != null) {
                    batch.put(table, Values.item(Errors.required(w.putRequest().item(), "putRequest.item")));
                    written.add(Map.entry(table, w.putRequest().item()));
                } else {
                    batch.delete(table, Values.key(Errors.required(w.deleteRequest().key(), "deleteRequest.key"), spec));
                    written.add(Map.entry(table, w.deleteRequest().key()));
                }
            }
        }
        boolean askedMetrics = CollectionMetrics.asked(r.returnItemCollectionMetricsAsString());
        boolean askedCapacity = Capacity.asked(r.returnConsumedCapacityAsString());
        db.batchWriteItem(batch);
        BatchWriteItemResponse.Builder b = BatchWriteItemResponse.builder().unprocessedItems(Map.of());
        if (askedCapacity) {
            b.consumedCapacity(Capacity.writes(written, false));
        }
        Map<String, List<ItemCollectionMetrics>> collections = askedMetrics ? metrics.of(written) : Map.of();
        if (!collections.isEmpty()) {
            // DynamoDB leaves the member out when no table written has a local index.
            b.itemCollectionMetrics(collections);
        }
        return b.build();
    }

    TransactWriteItemsResponse transactWrite(TransactWriteItemsRequest r) {
        if (!r.hasTransactItems() || r.transactItems().isEmpty()) {
            throw Errors.constraint(r.hasTransactItems() ? "[]" : null, "transactItems",
                    r.hasTransactItems() ? "Member must have length greater than or equal to 1" : "Member must not be null");
        }
        List<TransactWrite> writes = new ArrayList<>();
        List<Map.Entry<String, Map<String, AttributeValue>>> written = new ArrayList<>();
        for (TransactWriteItem t : r.transactItems()) {
            int kinds = (t.put() != null ? 1 : 0) + (t.update() != null ? 1 : 0) + (t.delete() != null ? 1 : 0)
                    + (t.conditionCheck() != null ? 1 : 0);
            if (kinds != 1) {
                throw Errors.validation("TransactItems can only contain one of Check, Put, Update or Delete");
            }
            if (t.put() != null) {
                var p = t.put();
                String table = Errors.required(p.tableName(), "transactItems.member.put.tableName");
                PutItem put = new PutItem(Values.item(Errors.required(p.item(), "transactItems.member.put.item")));
                writeParts(put, p.conditionExpression(), p.expressionAttributeNames(), p.expressionAttributeValues(),
                        p.returnValuesOnConditionCheckFailureAsString());
                writes.add(new TransactWrite(table, put));
                written.add(Map.entry(table, p.item()));
            } else if (t.update() != null) {
                var u = t.update();
                String table = Errors.required(u.tableName(), "transactItems.member.update.tableName");
                UpdateItem update = new UpdateItem(Values.key(Errors.required(u.key(), "transactItems.member.update.key"),
                        tables.spec(table)));
                update.update(Errors.required(u.updateExpression(), "transactItems.member.update.updateExpression"));
                writeParts(update, u.conditionExpression(), u.expressionAttributeNames(), u.expressionAttributeValues(),
                        u.returnValuesOnConditionCheckFailureAsString());
                writes.add(new TransactWrite(table, update));
                written.add(Map.entry(table, u.key()));
            } else if (t.delete() != null) {
                var d = t.delete();
                String table = Errors.required(d.tableName(), "transactItems.member.delete.tableName");
                DeleteItem delete = new DeleteItem(Values.key(Errors.required(d.key(), "transactItems.member.delete.key"),
                        tables.spec(table)));
                writeParts(delete, d.conditionExpression(), d.expressionAttributeNames(), d.expressionAttributeValues(),
                        d.returnValuesOnConditionCheckFailureAsString());
                writes.add(new TransactWrite(table, delete));
                written.add(Map.entry(table, d.key()));
            } else {
                var c = t.conditionCheck();
                String table = Errors.required(c.tableName(), "transactItems.member.conditionCheck.tableName");
                ConditionCheck check = new ConditionCheck(
                        Values.key(Errors.required(c.key(), "transactItems.member.conditionCheck.key"), tables.spec(table)),
                        Errors.required(c.conditionExpression(), "transactItems.member.conditionCheck.conditionExpression"));
                Items.placeholders(check, c.expressionAttributeNames(), c.expressionAttributeValues());
                check.returnItemOnConditionFailure(Items.returnOnFailure(c.returnValuesOnConditionCheckFailureAsString()));
                writes.add(new TransactWrite(table, check));
            }
        }
        // A ConditionCheck writes nothing, so it has no collection to report (DynamoDB lists Put, Update, Delete).
        boolean askedMetrics = CollectionMetrics.asked(r.returnItemCollectionMetricsAsString());
        boolean askedCapacity = Capacity.asked(r.returnConsumedCapacityAsString());
        db.transactWriteItems(writes, r.clientRequestToken());
        TransactWriteItemsResponse.Builder b = TransactWriteItemsResponse.builder();
        if (askedCapacity) {
            b.consumedCapacity(Capacity.writes(written, true));
        }
        Map<String, List<ItemCollectionMetrics>> collections = askedMetrics ? metrics.of(written) : Map.of();
        if (!collections.isEmpty()) {
            // DynamoDB leaves the member out when no table written has a local index.
            b.itemCollectionMetrics(collections);
        }
        return b.build();
    }

    TransactGetItemsResponse transactGet(TransactGetItemsRequest r) {
        if (!r.hasTransactItems() || r.transactItems().isEmpty()) {
            throw Errors.constraint(r.hasTransactItems() ? "[]" : null, "transactItems",
                    r.hasTransactItems() ? "Member must have length greater than or equal to 1" : "Member must not be null");
        }
        List<TransactGet> gets = new ArrayList<>();
        for (TransactGetItem t : r.transactItems()) {
            Get g = Errors.required(t.get(), "transactItems.member.get");
            String table = Errors.required(g.tableName(), "transactItems.member.get.tableName");
            GetItem get = new GetItem(Values.key(Errors.required(g.key(), "transactItems.member.get.key"),
                    tables.spec(table)));
            Items.placeholders(get, g.expressionAttributeNames(), null);
            if (g.projectionExpression() != null) {
                get.projection(g.projectionExpression());
            }
            gets.add(new TransactGet(table, get));
        }
        boolean askedCapacity = Capacity.asked(r.returnConsumedCapacityAsString());
        List<ItemResponse> responses = new ArrayList<>();
        List<Map.Entry<String, Map<String, AttributeValue>>> read = new ArrayList<>();
        int i = 0;
        for (Optional<Item> item : db.transactGetItems(gets)) {
            Map<String, AttributeValue> sdk = item.map(Values::sdk).orElse(null);
            responses.add(ItemResponse.builder().item(sdk).build());
            read.add(new java.util.AbstractMap.SimpleEntry<>(gets.get(i++).table(), sdk)); // null: not found, one unit
        }
        TransactGetItemsResponse.Builder b = TransactGetItemsResponse.builder().responses(responses);
        if (askedCapacity) {
            b.consumedCapacity(Capacity.reads(read, table -> true, true));
        }
        return b.build();
    }

    private static void writeParts(dev.lacuna.WriteRequest<?> w, String condition, Map<String, String> names,
                                   Map<String, AttributeValue> values, String onFailure) {
        if (condition != null) {
            w.condition(condition);
        }
        Items.placeholders(w, names, values);
        w.returnItemOnConditionFailure(Items.returnOnFailure(onFailure));
    }
}
