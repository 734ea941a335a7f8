package dev.lacuna.engine;

import dev.lacuna.vfs.testing.ManualClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IdempotentParameterMismatchException;
import dev.lacuna.Key;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactWrite;
import dev.lacuna.UpdateItem;
import dev.lacuna.item.KeyEncoding;
import dev.lacuna.kv.KeyspaceRouter;
import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.lsm.Keyspace;
import dev.lacuna.lsm.LsmStore;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A transaction's client request token is remembered for ten minutes — not a moment less, not forever —
 * also across a power loss, and the entries of expired tokens are deleted. Each retry is the same
 * counter increment, so a retry that ran again shows in the counter.
 */
class TokenLifetimeTest {
    private static final Path DIR = Path.of("/db");
    private static final Key COUNTER = Key.of("pk", AttributeValue.s("counter"));
    private static final Duration JUST_UNDER = Duration.ofMinutes(10).minusSeconds(1);
    private static final Duration JUST_OVER = Duration.ofMinutes(10).plusSeconds(1);

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final MemVfs vfs = new MemVfs();

    @Test
    void shouldRememberATokenForTenMinutesAndNoLonger() {
        try (Database db = open(vfs)) {
            db.createTable(TableSpec.builder("Counters").partitionKey("pk", AttributeValue.Type.S).build());
            increment(db, "tok");
            clock.advance(JUST_UNDER);
            increment(db, "tok");
            assertThat(count(db)).as("a retry within ten minutes ran again").isEqualTo(1);
            assertThatThrownBy(() -> db.transactWriteItems(List.of(new TransactWrite("Counters",
                    new UpdateItem(COUNTER).update("ADD n :two").value(":two", AttributeValue.n(2)))), "tok"))
                    .isInstanceOf(IdempotentParameterMismatchException.class);
            clock.advance(Duration.ofSeconds(2)); // ten minutes and one second after the first commit
            increment(db, "tok");
            assertThat(count(db)).as("a retry after ten minutes was not run").isEqualTo(2);
        }
    }

    @Test
    void shouldRememberATokenAcrossAPowerLoss() {
        try (Database db = open(vfs)) {
            db.createTable(TableSpec.builder("Counters").partitionKey("pk", AttributeValue.Type.S).build());
            increment(db, "tok");
        }
        MemVfs crashed = vfs.crashClone();
        clock.advance(JUST_UNDER);
        try (Database db = open(crashed)) {
            increment(db, "tok");
            assertThat(count(db)).as("a retry after a power loss ran again").isEqualTo(1);
            clock.advance(Duration.ofSeconds(2));
            increment(db, "tok");
            assertThat(count(db)).isEqualTo(2);
        }
    }

    @Test
    void shouldDeleteTheEntriesOfExpiredTokens() {
        try (Database db = open(vfs)) {
            db.createTable(TableSpec.builder("Counters").partitionKey("pk", AttributeValue.Type.S).build());
            for (int i = 0; i < 50; i++) {
                increment(db, "old-" + i);
            }
            clock.advance(JUST_OVER);
            increment(db, "new"); // more than a lifetime after the last sweep: sweeps the fifty expired ones
        }
        assertThat(tokenEntries(vfs)).as("token entries left after the sweep").isEqualTo(1);
    }

    private Database open(MemVfs v) {
        return Database.open(DIR, DatabaseOptions.builder().vfs(v).clock(clock).build());
    }

    private static void increment(Database db, String token) {
        db.transactWriteItems(List.of(new TransactWrite("Counters",
                new UpdateItem(COUNTER).update("ADD n :one").value(":one", AttributeValue.n(1)))), token);
    }

    private static long count(Database db) {
        return ((AttributeValue.N) db.table("Counters").getItem(COUNTER).orElseThrow().get("n")).value().longValueExact();
    }

    /** Entries in the tokens keyspace, read with the store's own reader after the database closed. */
    private static long tokenEntries(MemVfs v) {
        KvOptions options = KvOptions.builder().vfs(v).partitions(1).keyspaceRouter(KeyspaceRouter.FIRST_FOUR_BYTES)
                .keyPrefix(KeyEncoding::partitionPrefixLength).build();
        try (LsmStore kv = LsmStore.open(DIR, options, LsmStore.OWNER_ITEMS)) {
            for (Keyspace k : kv.keyspaces()) {
                if (TableCodec.decode(k.id(), k.descriptor()).kind() == TableCodec.KIND_TOKENS) {
                    long n = 0;
                    try (KvCursor c = kv.scanPartition(k.id(), 0, TableSchema.idBytes(k.id()),
                            TableSchema.idBytes(k.id() + 1), false, null)) {
                        for (; c.valid(); c.next()) {
                            n++;
                        }
                    }
                    return n;
                }
            }
        }
        throw new AssertionError("no tokens keyspace");
    }

}
