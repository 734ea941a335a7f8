package dev.lacuna.dynamodb;

import dev.lacuna.Database;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Query;
import dev.lacuna.TableSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ItemCollectionMetrics;
import software.amazon.awssdk.services.dynamodb.model.ReturnItemCollectionMetrics;

/**
 * {@code ItemCollectionMetrics}, when a write asks for it ({@code ReturnItemCollectionMetrics} {@code SIZE}) on a
 * table with a local secondary index (DynamoDB returns nothing for a table without one): the partition key of the
 * collection written and {@code SizeEstimateRangeGB}, the {@code [lower, upper]} size in GB of the collection after
 * the write — its items plus what each local index holds of them. The size is measured by reading the collection
 * back (a consistent Query, page by page), sizing items as {@link Capacity} does, so it costs a read of the
 * collection; that is why it is computed only when asked. The range is whole gigabytes around the size, as
 * DynamoDB reports a small collection ({@code [0.0, 1.0]}).
 */
final class CollectionMetrics {
    /** DynamoDB's documented per-entry overhead of an index item, counted in a local index's share. */
    private static final long INDEX_ENTRY_OVERHEAD = 100;
    private static final double GB = 1024.0 * 1024 * 1024;

    private final Database db;
    private final Tables tables;

    CollectionMetrics(Database db, Tables tables) {
        this.db = db;
        this.tables = tables;
    }

    /** Whether {@code raw} asks for item collection metrics. */
    static boolean asked(String raw) {
        return Errors.enumValue(raw, "returnItemCollectionMetrics", ReturnItemCollectionMetrics.class)
                == ReturnItemCollectionMetrics.SIZE;
    }

    /**
     * The metrics of the collection {@code keyOrItem} (a key or a whole item) belongs to, or null when
     * {@code table} has no local index.
     */
    ItemCollectionMetrics of(String table, Map<String, AttributeValue> keyOrItem) {
        TableSpec spec = tables.spec(table);
        List<IndexSpec> locals = locals(spec);
        if (locals.isEmpty()) {
            return null;
        }
        String pk = spec.partitionKey().name();
        return measure(table, spec, locals, Map.of(pk, keyOrItem.get(pk)));
    }

    /**
     * For a batch or a transaction: one entry per distinct collection written, grouped by table (tables without a
     * local index left out). Each write is a table name and the key or item written.
     */
    Map<String, List<ItemCollectionMetrics>> of(List<Map.Entry<String, Map<String, AttributeValue>>> writes) {
        Map<String, Set<Map<String, AttributeValue>>> collections = new LinkedHashMap<>();
        Map<String, TableSpec> specs = new HashMap<>();
        for (Map.Entry<String, Map<String, AttributeValue>> w : writes) {
            TableSpec spec = specs.computeIfAbsent(w.getKey(), tables::spec);
            if (locals(spec).isEmpty()) {
                continue;
            }
            String pk = spec.partitionKey().name();
            collections.computeIfAbsent(w.getKey(), t -> new LinkedHashSet<>()).add(Map.of(pk, w.getValue().get(pk)));
        }
        Map<String, List<ItemCollectionMetrics>> out = new LinkedHashMap<>();
        collections.forEach((table, keys) -> {
            TableSpec spec = specs.get(table);
            List<ItemCollectionMetrics> list = new ArrayList<>();
            for (Map<String, AttributeValue> key : keys) {
                list.add(measure(table, spec, locals(spec), key));
            }
            out.put(table, list);
        });
        return out;
    }

    private ItemCollectionMetrics measure(String table, TableSpec spec, List<IndexSpec> locals,
                                          Map<String, AttributeValue> collectionKey) {
        String pk = spec.partitionKey().name();
        Query q = new Query("#pk = :pk").names(Map.of("#pk", pk))
                .values(Map.of(":pk", Values.lacuna(collectionKey.get(pk))));
        q.consistentRead(true);
        long bytes = 0;
        for (Item i : db.queryPaginator(table, q).items()) {
            Map<String, AttributeValue> item = Values.sdk(i);
            bytes += Capacity.size(item);
            for (IndexSpec index : locals) {
                bytes += projected(spec, index, item);
            }
        }
        double lower = Math.floor(bytes / GB);
        return ItemCollectionMetrics.builder().itemCollectionKey(collectionKey)
                .sizeEstimateRangeGB(lower, lower + 1).build();
    }

    /** What {@code index} holds of {@code item}: nothing when the item lacks the index's sort key (sparse). */
    private static long projected(TableSpec spec, IndexSpec index, Map<String, AttributeValue> item) {
        if (!item.containsKey(index.sortKey().name())) {
            return 0;
        }
        if (index.projection() == IndexSpec.Projection.ALL) {
            return Capacity.size(item) + INDEX_ENTRY_OVERHEAD;
        }
        Set<String> names = new LinkedHashSet<>();
        names.add(spec.partitionKey().name());
        if (spec.sortKey() != null) {
            names.add(spec.sortKey().name());
        }
        names.add(index.sortKey().name());
        names.addAll(index.nonKeyAttributes());
        Map<String, AttributeValue> held = new LinkedHashMap<>();
        for (String n : names) {
            AttributeValue v = item.get(n);
            if (v != null) {
                held.put(n, v);
            }
        }
        return Capacity.size(held) + INDEX_ENTRY_OVERHEAD;
    }

    private static List<IndexSpec> locals(TableSpec spec) {
        return spec.indexes().stream().filter(i -> i.kind() == IndexSpec.Kind.LOCAL).toList();
    }
}
