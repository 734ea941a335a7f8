package dev.lacuna;

import java.util.Objects;

/**
 * One item of {@link Database#transactWriteItems}: a put, update, delete or condition check on a table.
 *
 * @param table the table's name
 * @param op    the write
 */
public record TransactWrite(String table, WriteOp op) {
    /** Checks that both are given. */
    public TransactWrite {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(op, "op");
    }
}
