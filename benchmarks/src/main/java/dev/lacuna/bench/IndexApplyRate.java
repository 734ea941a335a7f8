package dev.lacuna.bench;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Query;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * Prints the table's maximum write rate with one GSI and the GSI updater's maximum apply rate (issue 13: the
 * updater must apply at least as fast as the table can be written). On {@link MemVfs} (no fsync cost), with
 * index back-pressure off, the updater is held ({@link HeldUpdaterVfs}) while one writer updates {@code items}
 * items round robin ({@code 1}: one hot item moved within the index, as in {@link HotItemBenchmark}) {@code
 * writes} times as fast as it can: the table's write rate with the updater's work out of the way. Then the
 * updater is released and timed working off the backlog alone: its apply rate. Each round is printed;
 * {@code rounds} rounds in one JVM (the first warms up).
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.lacuna.bench.IndexApplyRate 300000 1 5}
 * (writes, items, rounds).
 */
public final class IndexApplyRate {
    private IndexApplyRate() {
    }

    public static void main(String[] args) throws Exception {
        int writes = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
        int items = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        for (int round = 1; round <= rounds; round++) {
            HeldUpdaterVfs vfs = new HeldUpdaterVfs(new MemVfs());
            DatabaseOptions options = BenchOptions.unthrottled(DatabaseOptions.builder().vfs(vfs)
                    .durability(Durability.NONE));
            try (Database db = Database.open(Path.of("/apply-rate"), options)) {
                db.createTable(TableSpec.builder("Hot").partitionKey("pk", AttributeValue.Type.S)
                        .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
                Table t = db.table("Hot");
                t.putItem(item(0, items));
                t.query(queue().readYourWrites(Duration.ofMinutes(1)));
                vfs.hold();
                long start = System.nanoTime();
                for (int i = 1; i <= writes; i++) {
                    t.putItem(item(i, items));
                }
                double writeSeconds = (System.nanoTime() - start) / 1e9;
                long behind = db.describeTable("Hot").index("GSI1").lagLsn();
                long caughtUpStart = System.nanoTime();
                vfs.release();
                t.query(queue().readYourWrites(Duration.ofMinutes(10)).limit(1));
                double applySeconds = (System.nanoTime() - caughtUpStart) / 1e9;
                System.out.printf(Locale.ROOT, "round %d: table %.0f writes/s with one GSI (%d writes, %d items);"
                                + " updater %.0f records/s (%d records behind, worked off in %.3f s); ratio %.2f%n",
                        round, writes / writeSeconds, writes, items, behind / applySeconds, behind, applySeconds,
                        (behind / applySeconds) / (writes / writeSeconds));
            }
        }
    }

    private static Query queue() {
        return new Query("GSI1PK = :q").index("GSI1").value(":q", AttributeValue.s("QUEUE#open"));
    }

    private static Item item(long i, int items) {
        // Odd and even writes put the item at the two ends of the queue: each write moves it in the index.
        return Item.builder().s("pk", "ITEM#" + (i % items)).s("GSI1PK", "QUEUE#open")
                .s("GSI1SK", (i & 1) == 0 ? "P1#" : "P3#").n("n", i).build();
    }
}
