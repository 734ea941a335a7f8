package dev.lacuna.engine;

import dev.lacuna.base.Utf8;
import dev.lacuna.index.BackfillProgress;
import dev.lacuna.AttributeValue;
import dev.lacuna.IndexDescription;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.TableDescription;
import dev.lacuna.TimeToLiveProgress;
import dev.lacuna.TableSpec;
import dev.lacuna.ValidationException;
import dev.lacuna.item.ItemSize;
import dev.lacuna.item.KeyEncoding;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A table as the engine uses it: its spec, its keyspace id, its settings (time to live, tags), and the checks
 * every request against it makes before anything is logged (key schema, key types, item size, index key
 * types).
 */
record TableSchema(int id, TableSpec spec, Instant createdAt, List<IndexRef> indexRefs, TableSettings settings,
                   List<LiveIndex> live) {

    TableSchema {
        indexRefs = List.copyOf(indexRefs);
        java.util.Objects.requireNonNull(settings, "settings");
        live = List.copyOf(live);
    }

    /** The same table with its maintainers. */
    TableSchema withLive(List<LiveIndex> indexes) {
        return new TableSchema(id, spec, createdAt, indexRefs, settings, indexes);
    }

    /** The same table with other settings. */
    TableSchema withSettings(TableSettings newSettings) {
        return new TableSchema(id, spec, createdAt, indexRefs, newSettings, live);
    }

    /** The descriptor of this table as the manifest keeps it. */
    byte[] descriptor() {
        return TableCodec.encode(spec, createdAt, indexRefs, settings);
    }

    /** The keyspace of index {@code name}, or -1. */
    int indexKeyspace(String name) {
        for (IndexRef r : indexRefs) {
            if (r.name().equals(name)) {
                return r.keyspace();
            }
        }
        return -1;
    }

    /** The open index named {@code name}, or null. */
    LiveIndex liveIndex(String name) {
        for (LiveIndex l : live) {
            if (l.spec().name().equals(name)) {
                return l;
            }
        }
        return null;
    }

    /** Whether some index of the table is kept from the log (so writes must log the items they replace). */
    boolean hasAsyncIndexes() {
        for (LiveIndex l : live) {
            if (!l.maintainer().synchronous()) {
                return true;
            }
        }
        return false;
    }


    String name() {
        return spec.name();
    }

    String pkName() {
        return spec.partitionKey().name();
    }

    /** The sort key's name, or null. */
    String skName() {
        return spec.sortKey() == null ? null : spec.sortKey().name();
    }

    boolean isKeyAttribute(String name) {
        return name.equals(pkName()) || name.equals(skName());
    }

    TableDescription describe() {
        return describe(TimeToLiveProgress.NONE);
    }

    /** The description, with what the time-to-live sweeper did to the table. */
    TableDescription describe(TimeToLiveProgress sweep) {
        List<IndexDescription> indexes = new java.util.ArrayList<>();
        for (LiveIndex l : live) {
            BackfillProgress progress = l.maintainer().backfillProgress();
            long applied = l.maintainer().appliedLsn();
            long lag = Math.max(0, l.maintainer().lastSeenLsn() - applied);
            indexes.add(new IndexDescription(l.spec().name(), l.keyspace(), l.maintainer().status(), progress.done(),
                    progress.total(), applied, lag, lag == 0 ? 0 : l.maintainer().lagMillis(), l.stalls().millis(),
                    l.stalls().held(), l.stalls().cause()));
        }
        return description("ACTIVE", indexes, sweep);
    }

    /** The description with {@code status} and {@code indexes}, the settings as they are. */
    TableDescription description(String status, List<IndexDescription> indexes) {
        return description(status, indexes, TimeToLiveProgress.NONE);
    }

    private TableDescription description(String status, List<IndexDescription> indexes, TimeToLiveProgress sweep) {
        StreamState stream = settings.stream();
        return new TableDescription(spec, id, status, createdAt, indexes, settings.timeToLive(), stream.spec(),
                stream.label(), stream.arn(name()), sweep);
    }

    /** Whether writes to the table produce change stream records (so they must log the items they replace). */
    boolean streamEnabled() {
        return settings.stream().enabled();
    }

    /** The primary key of {@code item}, checked against the schema. */
    Key keyOf(Item item) {
        Key key = Key.from(item, pkName(), skName());
        checkTypes(key);
        return key;
    }

    /** Checks that {@code key} has exactly the schema's key attributes, of the schema's types. */
    Key check(Key key) {
        boolean namesMatch = key.partitionKeyName().equals(pkName())
                && (skName() == null ? !key.hasSortKey() : skName().equals(key.sortKeyName()));
        if (!namesMatch) {
            throw new ValidationException("The provided key element does not match the schema: table " + name()
                    + " has key " + pkName() + (skName() == null ? "" : ", " + skName()) + ", the request gives "
                    + key.attributes().keySet());
        }
        checkTypes(key);
        return key;
    }

    /** A key given as a map (an exclusive start key, say), checked against the schema. */
    Key keyFromMap(Map<String, AttributeValue> map, String what) {
        int expected = skName() == null ? 1 : 2;
        if (map.size() != expected || !map.containsKey(pkName()) || (skName() != null && !map.containsKey(skName()))) {
            throw new ValidationException("The provided starting key is invalid: " + what + " must hold exactly the key "
                    + "attributes " + pkName() + (skName() == null ? "" : ", " + skName()) + ": " + map.keySet());
        }
        Key key = skName() == null ? Key.of(pkName(), map.get(pkName()))
                : Key.of(pkName(), map.get(pkName()), skName(), map.get(skName()));
        checkTypes(key);
        return key;
    }

    private void checkTypes(Key key) {
        checkType(spec.partitionKey(), key.partitionKey(), "");
        if (spec.sortKey() != null) {
            checkType(spec.sortKey(), key.sortKey(), "");
        }
    }

    private static void checkType(KeyAttribute attribute, AttributeValue value, String index) {
        if (value.type() != attribute.type()) {
            throw new ValidationException("One or more parameter values were invalid: Type mismatch for "
                    + (index.isEmpty() ? "key " : "Index Key ") + attribute.name() + " Expected: " + attribute.type()
                    + " Actual: " + value.type() + (index.isEmpty() ? "" : " IndexName: " + index));
        }
    }

    /**
     * Checks an item about to be written: its size, and every index key attribute it has (present with the
     * wrong type, or an empty string or binary, is rejected as DynamoDB does).
     */
    void checkWritable(Item item) {
        long size = ItemSize.of(item);
        if (size > ItemSize.MAX_ITEM_BYTES) {
            throw new ValidationException("Item size has exceeded the maximum allowed size: " + size + " bytes > "
                    + ItemSize.MAX_ITEM_BYTES);
        }
        for (IndexSpec index : spec.indexes()) {
            checkIndexKey(index, index.partitionKey(), item);
            if (index.sortKey() != null) {
                checkIndexKey(index, index.sortKey(), item);
            }
        }
    }

    private static void checkIndexKey(IndexSpec index, KeyAttribute attribute, Item item) {
        AttributeValue v = item.get(attribute.name());
        if (v == null) {
            return;
        }
        checkType(attribute, v, index.name());
        int max = attribute == index.partitionKey() ? Key.MAX_PARTITION_KEY_BYTES : Key.MAX_SORT_KEY_BYTES;
        long size = v instanceof AttributeValue.S s ? Utf8.length(s.value())
                : v instanceof AttributeValue.B b ? b.value().length : 0;
        if (size > max) {
            throw new ValidationException("One or more parameter values were invalid: Size of index key " + attribute.name()
                    + " of index " + index.name() + " is " + size + " bytes; the limit is " + max);
        }
        boolean empty = (v instanceof AttributeValue.S s && s.value().isEmpty())
                || (v instanceof AttributeValue.B b && b.value().length == 0);
        if (empty) {
            throw new ValidationException("One or more parameter values are not valid. A value specified for a "
                    + "secondary index key is not supported. The AttributeValue for a key attribute cannot contain an "
                    + "empty " + (v instanceof AttributeValue.S ? "string" : "binary") + " value. IndexName: "
                    + index.name() + ", IndexKey: " + attribute.name());
        }
    }

    byte[] encode(Key key) {
        return KeyEncoding.encodeKey(id, key);
    }

    /** The first key of this table's keyspace. */
    byte[] lowest() {
        return idBytes(id);
    }

    /** Above every key of this table's keyspace. */
    byte[] highest() {
        return idBytes(id + 1);
    }

    static byte[] idBytes(int id) {
        return java.nio.ByteBuffer.allocate(KeyEncoding.TABLE_ID_BYTES).putInt(id).array();
    }
}
