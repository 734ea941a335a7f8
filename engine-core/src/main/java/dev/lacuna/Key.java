package dev.lacuna;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A primary key: the partition key attribute and, for tables with a sort key, the sort key attribute.
 * Immutable and thread-safe. Key values are validated as DynamoDB does on construction: each is an S, N
 * or B; strings and binaries are non-empty; a partition key is at most {@value #MAX_PARTITION_KEY_BYTES}
 * bytes and a sort key at most {@value #MAX_SORT_KEY_BYTES} (UTF-8 bytes of a string, bytes of a binary).
 * A violation throws {@link ValidationException}. Whether the types match a table's key schema is checked
 * by the table.
 *
 * <p>Two keys are equal when they have the same attribute names in the same roles and equal values.
 * {@link #toString()} is DynamoDB JSON, partition key first.
 */
public final class Key {
    /** Largest partition key value, in bytes. */
    public static final int MAX_PARTITION_KEY_BYTES = 2048;
    /** Largest sort key value, in bytes. */
    public static final int MAX_SORT_KEY_BYTES = 1024;

    private final String partitionKeyName;
    private final AttributeValue partitionKey;
    private final String sortKeyName;
    private final AttributeValue sortKey;

    private Key(String partitionKeyName, AttributeValue partitionKey, String sortKeyName, AttributeValue sortKey) {
        this.partitionKeyName = Item.checkName(partitionKeyName);
        this.partitionKey = check(partitionKeyName, partitionKey, "partition", MAX_PARTITION_KEY_BYTES);
        if (sortKeyName != null) {
            Item.checkName(sortKeyName);
            if (sortKeyName.equals(partitionKeyName)) {
                throw new ValidationException("the partition key and the sort key are both named " + sortKeyName);
            }
            check(sortKeyName, sortKey, "sort", MAX_SORT_KEY_BYTES);
        } else if (sortKey != null) {
            throw new ValidationException("a sort key value needs a name");
        }
        this.sortKeyName = sortKeyName;
        this.sortKey = sortKey;
    }

    /** A key of a table without a sort key. */
    public static Key of(String partitionKeyName, AttributeValue partitionKey) {
        return new Key(partitionKeyName, partitionKey, null, null);
    }

    /** A key of a table with a sort key. */
    public static Key of(String partitionKeyName, AttributeValue partitionKey, String sortKeyName,
                         AttributeValue sortKey) {
        return new Key(partitionKeyName, partitionKey, Objects.requireNonNull(sortKeyName, "sortKeyName"), sortKey);
    }

    /**
     * The key of {@code item} in a table whose key attributes are {@code partitionKeyName} and
     * {@code sortKeyName} (null: no sort key).
     *
     * @throws ValidationException if the item lacks a key attribute or a key value is invalid
     */
    public static Key from(Item item, String partitionKeyName, String sortKeyName) {
        AttributeValue pk = item.get(partitionKeyName);
        if (pk == null) {
            throw new ValidationException("Missing the key " + partitionKeyName + " in the item");
        }
        if (sortKeyName == null) {
            return of(partitionKeyName, pk);
        }
        AttributeValue sk = item.get(sortKeyName);
        if (sk == null) {
            throw new ValidationException("Missing the key " + sortKeyName + " in the item");
        }
        return of(partitionKeyName, pk, sortKeyName, sk);
    }

    /** A builder: the first attribute added is the partition key, the second (if any) the sort key. */
    public static Builder builder() {
        return new Builder();
    }

    /** Name of the partition key attribute. */
    public String partitionKeyName() {
        return partitionKeyName;
    }

    /** Value of the partition key. */
    public AttributeValue partitionKey() {
        return partitionKey;
    }

    /** Name of the sort key attribute, or null if the key has none. */
    public String sortKeyName() {
        return sortKeyName;
    }

    /** Value of the sort key, or null if the key has none. */
    public AttributeValue sortKey() {
        return sortKey;
    }

    /** Whether the key has a sort key. */
    public boolean hasSortKey() {
        return sortKeyName != null;
    }

    /** The value of key attribute {@code name}, or null if it is not one of this key's attributes. */
    public AttributeValue get(String name) {
        if (partitionKeyName.equals(name)) {
            return partitionKey;
        }
        return sortKeyName != null && sortKeyName.equals(name) ? sortKey : null;
    }

    /** The key attributes, partition key first; unmodifiable. */
    public Map<String, AttributeValue> attributes() {
        LinkedHashMap<String, AttributeValue> map = new LinkedHashMap<>();
        map.put(partitionKeyName, partitionKey);
        if (sortKeyName != null) {
            map.put(sortKeyName, sortKey);
        }
        return Collections.unmodifiableMap(map);
    }

    /** An item holding just the key attributes. */
    public Item toItem() {
        return Item.of(attributes());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Key k && partitionKeyName.equals(k.partitionKeyName) && partitionKey.equals(k.partitionKey)
                && Objects.equals(sortKeyName, k.sortKeyName) && Objects.equals(sortKey, k.sortKey);
    }

    @Override
    public int hashCode() {
        return Objects.hash(partitionKeyName, partitionKey, sortKeyName, sortKey);
    }

    /** The key in DynamoDB JSON, partition key first. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        Item.appendJson(sb, attributes());
        return sb.toString();
    }

    /** Builds a {@link Key}; not thread-safe. */
    public static final class Builder {
        private final String[] names = new String[2];
        private final AttributeValue[] values = new AttributeValue[2];
        private int count;

        private Builder() {
        }

        /**
         * Adds the partition key (first call) or the sort key (second call).
         *
         * @throws ValidationException on a third call
         */
        public Builder put(String name, AttributeValue value) {
            if (count == 2) {
                throw new ValidationException("a key has at most two attributes; " + name + " is a third");
            }
            names[count] = name;
            values[count] = value;
            count++;
            return this;
        }

        /** Adds a string key attribute. */
        public Builder s(String name, String value) {
            return put(name, AttributeValue.s(value));
        }

        /** Adds a number key attribute. */
        public Builder n(String name, long value) {
            return put(name, AttributeValue.n(value));
        }

        /** Adds a number key attribute from DynamoDB's text form. */
        public Builder n(String name, String value) {
            return put(name, AttributeValue.n(value));
        }

        /** Adds a number key attribute. */
        public Builder n(String name, BigDecimal value) {
            return put(name, AttributeValue.n(value));
        }

        /** Adds a binary key attribute (the bytes are copied). */
        public Builder b(String name, byte[] value) {
            return put(name, AttributeValue.b(value));
        }

        /**
         * The key.
         *
         * @throws ValidationException if no attribute was added or a value is invalid
         */
        public Key build() {
            if (count == 0) {
                throw new ValidationException("a key needs a partition key attribute");
            }
            return new Key(names[0], values[0], names[1], values[1]);
        }
    }

    private static AttributeValue check(String name, AttributeValue value, String role, int maxBytes) {
        if (value == null) {
            throw new ValidationException("the " + role + " key " + name + " has no value");
        }
        long bytes;
        if (value instanceof AttributeValue.S s) {
            bytes = s.value().getBytes(StandardCharsets.UTF_8).length;
        } else if (value instanceof AttributeValue.B b) {
            bytes = b.buffer().remaining();
        } else if (value instanceof AttributeValue.N) {
            return value;
        } else {
            throw new ValidationException("the " + role + " key " + name + " must be of type S, N or B, not "
                    + value.type());
        }
        if (bytes == 0) {
            throw new ValidationException("One or more parameter values are not valid. The AttributeValue for a key"
                    + " attribute cannot contain an empty " + (value instanceof AttributeValue.S ? "string" : "binary")
                    + " value. Key: " + name);
        }
        if (bytes > maxBytes) {
            throw new ValidationException("the " + role + " key " + name + " is " + bytes
                    + " bytes, more than the limit of " + maxBytes);
        }
        return value;
    }
}
