package dev.lacuna;

import java.time.Instant;
import java.util.List;

/**
 * A table as {@link Database#describeTable} reports it.
 *
 * @param spec      the key schema, partitions and indexes
 * @param id        the table's internal id (its keyspace); a table created again after a delete gets a new one
 * @param status    {@code ACTIVE} (tables are usable as soon as {@code createTable} returns)
 * @param createdAt when it was created
 * @param indexes   the state of each secondary index (status, backfill progress, what it has applied)
 */
public record TableDescription(TableSpec spec, int id, String status, Instant createdAt,
                               List<IndexDescription> indexes) {
    /** Copies the list. */
    public TableDescription {
        indexes = List.copyOf(indexes);
    }

    /** The state of index {@code name}, or null. */
    public IndexDescription index(String name) {
        return indexes.stream().filter(i -> i.name().equals(name)).findFirst().orElse(null);
    }

    /** The table's name. */
    public String name() {
        return spec.name();
    }
}
