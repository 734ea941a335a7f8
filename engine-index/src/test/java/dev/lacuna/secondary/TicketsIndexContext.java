package dev.lacuna.secondary;

import dev.lacuna.AttributeValue;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.TableSpec;
import dev.lacuna.index.IndexContext;
import dev.lacuna.kv.KvSnapshot;
import java.time.Clock;
import java.util.function.Consumer;

/**
 * What the updater tests' scripted contexts share: table Tickets with GSI1 on {@code GSI1PK}, the system clock, no
 * checkpoint taken yet, and nothing to back-fill from. Each test's context supplies the log, the entries and where
 * they are applied.
 */
abstract class TicketsIndexContext implements IndexContext {
    static final TableSpec TABLE = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
            .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), null)).build();

    @Override
    public TableSpec table() {
        return TABLE;
    }

    @Override
    public IndexSpec index() {
        return TABLE.index("GSI1");
    }

    @Override
    public Clock clock() {
        return Clock.systemUTC();
    }

    @Override
    public long checkpointLsn() {
        return 0;
    }

    @Override
    public void flush() {
    }

    @Override
    public void scanTable(KvSnapshot snapshot, Consumer<Item> item) {
    }

    @Override
    public void activated() {
    }
}
