package dev.lacuna.secondary;

import dev.lacuna.AttributeValue;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.TableSpec;
import dev.lacuna.index.IndexContext;
import dev.lacuna.index.IndexEntry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An item's entry in a global or local index. Sparse: an item is in the index only while it holds every
 * key attribute of the index with its type (and non-empty). The entry's key is the index keys followed by
 * the item's own key; its value is the item as the index projects it.
 */
final class IndexEntries {
    private final IndexContext context;
    private final IndexSpec index;
    private final TableSpec table;

    IndexEntries(IndexContext context) {
        this.context = context;
        this.index = context.index();
        this.table = context.table();
    }

    List<IndexEntry> of(Item item) {
        AttributeValue pk = keyValue(item, index.partitionKey().name(), index.partitionKey().type());
        if (pk == null) {
            return List.of();
        }
        AttributeValue sk = null;
        if (index.sortKey() != null) {
            sk = keyValue(item, index.sortKey().name(), index.sortKey().type());
            if (sk == null) {
                return List.of();
            }
        }
        String tableSk = table.sortKey() == null ? null : table.sortKey().name();
        Key base = Key.from(item, table.partitionKey().name(), tableSk);
        return List.of(context.entry(pk, sk, base, project(item, base)));
    }

    /** The value of key attribute {@code name} if {@code item} has it with the right type and non-empty, else null. */
    private static AttributeValue keyValue(Item item, String name, AttributeValue.Type type) {
        AttributeValue v = item.get(name);
        if (v == null || v.type() != type) {
            return null; // writes with a wrong type are refused; older items (before the index existed) are skipped
        }
        if ((v instanceof AttributeValue.S s && s.value().isEmpty()) || (v instanceof AttributeValue.B b && b.value().length == 0)) {
            return null;
        }
        return v;
    }

    private Item project(Item item, Key base) {
        if (index.projection() == IndexSpec.Projection.ALL) {
            return item;
        }
        Map<String, AttributeValue> out = new LinkedHashMap<>(base.attributes());
        out.put(index.partitionKey().name(), item.get(index.partitionKey().name()));
        if (index.sortKey() != null) {
            out.put(index.sortKey().name(), item.get(index.sortKey().name()));
        }
        for (String name : index.nonKeyAttributes()) {
            AttributeValue v = item.get(name);
            if (v != null) {
                out.put(name, v);
            }
        }
        return Item.of(out);
    }
}
