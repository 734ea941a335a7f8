package dev.lacuna;

import dev.lacuna.item.ItemSize;
import dev.lacuna.item.KeyEncoding;
import java.time.Instant;
import java.util.Map;

/**
 * A table as the engine uses it: its spec, its keyspace id, and the checks every request against it makes
 * before anything is logged (key schema, key types, item size, index key types).
 */
record TableSchema(int id, TableSpec spec, Instant createdAt) {

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
        return new TableDescription(spec, id, "ACTIVE", createdAt);
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
