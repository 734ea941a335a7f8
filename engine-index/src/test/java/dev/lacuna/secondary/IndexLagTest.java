package dev.lacuna.secondary;

import dev.lacuna.vfs.testing.ManualClock;
import java.time.Instant;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexDescription;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.PutItem;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A GSI's lag in milliseconds is the age of the oldest write it has not applied, by the database's clock
 * (the log records' write times), not the wall time since it last caught up: an updater held back while the
 * clock moves on reports how old the write it owes is, and 0 once it has caught up.
 */
class IndexLagTest {
    private static final Path DIR = Path.of("/db");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final TableSpec SPEC = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
            .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build();

    @Test
    void shouldReportTheAgeOfTheOldestWriteNotYetApplied() {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        FaultyVfs faulty = new FaultyVfs(new MemVfs());
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(faulty).clock(clock).build())) {
            db.createTable(SPEC);
            IndexChecker.checkAll(db, SPEC.name(), WAIT);
            assertThat(db.describeTable(SPEC.name()).index("GSI1").lagMillis()).as("caught up").isZero();

            faulty.failFrom(FaultyVfs.Op.READ, 1); // the updater cannot read the records written next
            put(db, 0); // the oldest write the index will owe, at the clock's start
            clock.advance(Duration.ofMinutes(3));
            put(db, 1);
            clock.advance(Duration.ofMinutes(4));
            IndexChecker.await(() -> faulty.injectedCount() >= 1, WAIT, "the updater to fail reading the log");

            IndexDescription behind = db.describeTable(SPEC.name()).index("GSI1");
            assertThat(behind.lagLsn()).as("records not applied").isGreaterThanOrEqualTo(2);
            // The first write is 7 minutes old by the clock, however little real time went by.
            assertThat(behind.lagMillis()).isEqualTo(Duration.ofMinutes(7).toMillis());

            faulty.heal();
            IndexChecker.checkAll(db, SPEC.name(), WAIT);
            assertThat(db.describeTable(SPEC.name()).index("GSI1").lagMillis()).as("caught up again").isZero();
        }
    }

    private static void put(Database db, int i) {
        db.table(SPEC.name()).putItem(new PutItem(Item.builder().s("pk", "item" + i)
                .s("GSI1PK", "queue").s("GSI1SK", String.format("%04d", i)).build()));
    }
}
