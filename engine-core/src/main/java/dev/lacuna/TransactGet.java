package dev.lacuna;

import java.util.Objects;

/**
 * One item of {@link Database#transactGetItems}: a read of one item of a table.
 *
 * @param table the table's name
 * @param get   the read (key and projection)
 */
public record TransactGet(String table, GetItem get) {
    /** Checks that both are given. */
    public TransactGet {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(get, "get");
    }
}
