package dev.lacuna;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What {@link Database#createTable} creates: a name, the key schema, the number of hash partitions, and
 * the secondary indexes. Immutable; build with {@link #builder(String)}.
 *
 * @param name         3 to 255 characters of {@code [a-zA-Z0-9_.-]}
 * @param partitionKey the partition key attribute
 * @param sortKey      the sort key attribute, or null
 * @param partitions   hash partitions, a power of two from 1 to 1024 (fixed at creation); a Query reads one
 * @param indexes      secondary indexes (at most 20 global and 5 local, distinct names)
 * @param streamSpecification the table's change stream: at creation, null means none; in
 *                     {@link Database#updateTable}, null leaves the stream as it is, and a specification enables
 *                     or disables it (as DynamoDB's {@code StreamSpecification}). {@link Database#describeTable}
 *                     reports the stream in {@link TableDescription#streamSpecification()}, not here.
 */
public record TableSpec(String name, KeyAttribute partitionKey, KeyAttribute sortKey, int partitions,
                        List<IndexSpec> indexes, StreamSpecification streamSpecification) {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_.-]{3,255}");
    /** Partitions of a table whose spec does not name a number. */
    public static final int DEFAULT_PARTITIONS = 4;

    /** Checks the specification. */
    public TableSpec {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new ValidationException("table name " + name + " must be 3 to 255 characters of [a-zA-Z0-9_.-]");
        }
        if (partitionKey == null) {
            throw new ValidationException("table " + name + " needs a partition key");
        }
        if (sortKey != null && sortKey.name().equals(partitionKey.name())) {
            throw new ValidationException("table " + name + ": the partition key and the sort key are both named "
                    + sortKey.name());
        }
        if (partitions < 1 || partitions > 1024 || Integer.bitCount(partitions) != 1) {
            throw new ValidationException("table " + name + ": partitions must be a power of two from 1 to 1024: "
                    + partitions);
        }
        List<IndexSpec> checked = new ArrayList<>();
        Set<String> names = new HashSet<>();
        int global = 0;
        int local = 0;
        for (IndexSpec index : indexes) {
            if (!names.add(index.name())) {
                throw new ValidationException("Duplicate index name: " + index.name());
            }
            if (index.kind() == IndexSpec.Kind.LOCAL) {
                local++;
                if (sortKey == null) {
                    throw new ValidationException("local index " + index.name() + " needs a table with a sort key");
                }
                index = index.withPartitionKey(partitionKey);
            } else {
                global++;
            }
            checked.add(index);
        }
        java.util.Map<String, AttributeValue.Type> types = new java.util.HashMap<>();
        List<KeyAttribute> keys = new ArrayList<>();
        keys.add(partitionKey);
        if (sortKey != null) {
            keys.add(sortKey);
        }
        for (IndexSpec index : checked) {
            keys.add(index.partitionKey());
            if (index.sortKey() != null) {
                keys.add(index.sortKey());
            }
        }
        for (KeyAttribute k : keys) {
            AttributeValue.Type before = types.putIfAbsent(k.name(), k.type());
            if (before != null && before != k.type()) {
                throw new ValidationException("table " + name + ": attribute " + k.name() + " is defined as both "
                        + before + " and " + k.type() + " in the key schemas of the table and its indexes");
            }
        }
        if (global > 20 || local > 5) {
            throw new ValidationException("table " + name + " has " + global + " global and " + local
                    + " local indexes; at most 20 and 5");
        }
        indexes = List.copyOf(checked);
    }

    /** A spec without a stream specification (see {@link #streamSpecification()}). */
    public TableSpec(String name, KeyAttribute partitionKey, KeyAttribute sortKey, int partitions,
                     List<IndexSpec> indexes) {
        this(name, partitionKey, sortKey, partitions, indexes, null);
    }

    /** The same spec with {@code stream} as its stream specification. */
    public TableSpec withStreamSpecification(StreamSpecification stream) {
        return new TableSpec(name, partitionKey, sortKey, partitions, indexes, stream);
    }

    /** A builder for a table named {@code name}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** The index named {@code name}, or null. */
    public IndexSpec index(String indexName) {
        for (IndexSpec i : indexes) {
            if (i.name().equals(indexName)) {
                return i;
            }
        }
        return null;
    }

    /** Builds a {@link TableSpec}. */
    public static final class Builder {
        private final String name;
        private KeyAttribute partitionKey;
        private KeyAttribute sortKey;
        private int partitions = DEFAULT_PARTITIONS;
        private final List<IndexSpec> indexes = new ArrayList<>();
        private StreamSpecification stream;

        private Builder(String name) {
            this.name = name;
        }

        /** Sets the partition key. */
        public Builder partitionKey(String attribute, AttributeValue.Type type) {
            partitionKey = new KeyAttribute(attribute, type);
            return this;
        }

        /** Sets the sort key. */
        public Builder sortKey(String attribute, AttributeValue.Type type) {
            sortKey = new KeyAttribute(attribute, type);
            return this;
        }

        /** Sets the number of hash partitions (default {@value TableSpec#DEFAULT_PARTITIONS}). */
        public Builder partitions(int n) {
            partitions = n;
            return this;
        }

        /** Adds a secondary index. */
        public Builder index(IndexSpec index) {
            indexes.add(Objects.requireNonNull(index, "index"));
            return this;
        }

        /** Sets the table's change stream ({@link TableSpec#streamSpecification()}). */
        public Builder streamSpecification(StreamSpecification s) {
            stream = s;
            return this;
        }

        /** Validates and builds. */
        public TableSpec build() {
            return new TableSpec(name, partitionKey, sortKey, partitions, indexes, stream);
        }
    }
}
