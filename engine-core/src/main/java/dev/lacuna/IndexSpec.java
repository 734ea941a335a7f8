package dev.lacuna;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A secondary index of a table: a global one (its own partition key, kept from the log, eventually
 * consistent) or a local one (the table's partition key with another sort key, kept in the write path).
 * An item is in the index only while it has every key attribute of the index (sparse indexes).
 *
 * @param name             the index name: 3 to 255 characters of {@code [a-zA-Z0-9_.-]}
 * @param kind             global or local
 * @param partitionKey     the index partition key (for a local index, the table's partition key)
 * @param sortKey          the index sort key, or null (a local index needs one)
 * @param projection       which attributes the index holds besides the keys
 * @param nonKeyAttributes for {@link Projection#INCLUDE}, the attributes added; otherwise empty
 * @param partitions       hash partitions of a global index (power of two, 1 to 1024); 0 for a local one
 */
public record IndexSpec(String name, Kind kind, KeyAttribute partitionKey, KeyAttribute sortKey, Projection projection,
                        List<String> nonKeyAttributes, int partitions) {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_.-]{3,255}");

    /** Global or local. */
    public enum Kind {
        /** Its own partition key and partitions; kept from the log, eventually consistent. */
        GLOBAL,
        /** The table's partition key, another sort key; kept in the write path, strongly consistent. */
        LOCAL
    }

    /** Which attributes an index holds: all, only the keys, or the keys and named attributes. */
    public enum Projection {
        /** Every attribute of the item. */
        ALL,
        /** The table's and the index's key attributes only. */
        KEYS_ONLY,
        /** The keys and the attributes named in {@code nonKeyAttributes}. */
        INCLUDE
    }

    /** Checks the specification. */
    public IndexSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(partitionKey, "partitionKey");
        Objects.requireNonNull(projection, "projection");
        nonKeyAttributes = List.copyOf(nonKeyAttributes);
        if (!NAME.matcher(name).matches()) {
            throw new ValidationException("index name " + name + " must be 3 to 255 characters of [a-zA-Z0-9_.-]");
        }
        if (sortKey != null && sortKey.name().equals(partitionKey.name())) {
            throw new ValidationException("index " + name + ": the partition key and the sort key are both named "
                    + sortKey.name());
        }
        if (kind == Kind.LOCAL && sortKey == null) {
            throw new ValidationException("local secondary index " + name + " needs a sort key");
        }
        if (projection == Projection.INCLUDE ? nonKeyAttributes.isEmpty() : !nonKeyAttributes.isEmpty()) {
            throw new ValidationException("index " + name + ": non-key attributes go with projection INCLUDE, and only with it");
        }
        if (kind == Kind.GLOBAL ? (partitions < 1 || partitions > 1024 || Integer.bitCount(partitions) != 1)
                : partitions != 0) {
            throw new ValidationException("index " + name + ": a global index has 1 to 1024 partitions (a power of two), "
                    + "a local one none of its own: " + partitions);
        }
    }

    /** A global index with projection {@code ALL} and 4 partitions. */
    public static IndexSpec global(String name, KeyAttribute partitionKey, KeyAttribute sortKey) {
        return new IndexSpec(name, Kind.GLOBAL, partitionKey, sortKey, Projection.ALL, List.of(), 4);
    }

    /** A local index with projection {@code ALL}; its partition key is set from the table's. */
    public static IndexSpec local(String name, KeyAttribute sortKey) {
        return new IndexSpec(name, Kind.LOCAL, new KeyAttribute("-", AttributeValue.Type.S), sortKey, Projection.ALL,
                List.of(), 0);
    }

    /** This index with another projection. */
    public IndexSpec withProjection(Projection p, String... include) {
        return new IndexSpec(name, kind, partitionKey, sortKey, p, List.of(include), partitions);
    }

    /** This (global) index with another partition count. */
    public IndexSpec withPartitions(int n) {
        return new IndexSpec(name, kind, partitionKey, sortKey, projection, nonKeyAttributes, n);
    }

    IndexSpec withPartitionKey(KeyAttribute pk) {
        return new IndexSpec(name, kind, pk, sortKey, projection, nonKeyAttributes, partitions);
    }
}
