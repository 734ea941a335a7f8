package dev.lacuna;

import java.time.Instant;

/**
 * A table as {@link Database#describeTable} reports it.
 *
 * @param spec      the key schema, partitions and indexes
 * @param id        the table's internal id (its keyspace); a table created again after a delete gets a new one
 * @param status    {@code ACTIVE} (tables are usable as soon as {@code createTable} returns)
 * @param createdAt when it was created
 */
public record TableDescription(TableSpec spec, int id, String status, Instant createdAt) {
    /** The table's name. */
    public String name() {
        return spec.name();
    }
}
