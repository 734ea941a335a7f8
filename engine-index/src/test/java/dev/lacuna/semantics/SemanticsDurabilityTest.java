package dev.lacuna.semantics;

import dev.lacuna.AttributeValue;
import dev.lacuna.BatchWriteItem;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.DeleteItem;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.PutItem;
import dev.lacuna.Scan;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactWrite;
import dev.lacuna.UpdateItem;
import dev.lacuna.storage.Durability;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.semantics.SemanticsFixtures.DIR;
import static dev.lacuna.semantics.SemanticsFixtures.allPages;
import static dev.lacuna.semantics.SemanticsFixtures.items;
import static dev.lacuna.semantics.SemanticsFixtures.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.vfs.MemVfs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * Durability as SEMANTICS.md promises it: with {@code Durability.SYNC} every acknowledged write (single,
 * batch, transaction; the database's default or a request's own) survives a power loss, simulated by
 * {@link MemVfs#crashClone()} of a database that is still open; created, updated and deleted tables too.
 * (Transactions across power loss at any instant: TransactionCrashTest.)
 */
class SemanticsDurabilityTest {

    private static DatabaseOptions options(MemVfs vfs, Durability durability) {
        return DatabaseOptions.builder().vfs(vfs).durability(durability).build();
    }

    private static Set<Item> contents(Database db, String table) {
        return new HashSet<>(items(allPages(start -> db.scan(table, new Scan().exclusiveStartKey(start)), 1000)));
    }

    /** The state after a strict power loss now: only what was fsynced. */
    private static Set<Item> afterPowerLoss(MemVfs vfs, String table) {
        try (Database recovered = Database.open(DIR, options(vfs.crashClone(), Durability.SYNC))) {
            return contents(recovered, table);
        }
    }

    @Test
    void shouldKeepEverySyncAcknowledgedWriteThroughAPowerLoss() {
        MemVfs vfs = new MemVfs();
        Random random = new Random(11);
        int ops = Integer.getInteger("semantics.durability.ops", 300);
        // The model: what each acknowledged request says the table holds, computed without the engine.
        Map<String, Item> model = new HashMap<>();
        int compared = 0;
        try (Database db = Database.open(DIR, options(vfs, Durability.SYNC))) {
            db.createTable(TableSpec.builder("KvTable").partitionKey("pk", AttributeValue.Type.S).build());
            Table t = db.table("KvTable");
            for (int i = 0; i < ops; i++) {
                String k = "K" + random.nextInt(20);
                switch (random.nextInt(5)) {
                    case 0 -> {
                        t.putItem(Item.builder().s("pk", k).n("v", i).build());
                        model.put(k, Item.builder().s("pk", k).n("v", i).build());
                    }
                    case 1 -> {
                        t.updateItem(new UpdateItem(key(k)).update("ADD c :one").value(":one", n(1)));
                        Item old = model.getOrDefault(k, Item.builder().s("pk", k).build());
                        long c = old.get("c") == null ? 0 : ((AttributeValue.N) old.get("c")).value().longValueExact();
                        model.put(k, old.with("c", n(c + 1)));
                    }
                    case 2 -> {
                        t.deleteItem(key(k));
                        model.remove(k);
                    }
                    case 3 -> {
                        db.batchWriteItem(new BatchWriteItem().put("KvTable", Item.builder().s("pk", k).n("b", i).build())
                                .delete("KvTable", key(k + "x")).put("KvTable", Item.builder().s("pk", k + "y").build()));
                        model.put(k, Item.builder().s("pk", k).n("b", i).build());
                        model.remove(k + "x");
                        model.put(k + "y", Item.builder().s("pk", k + "y").build());
                    }
                    default -> {
                        db.transactWriteItems(List.of(
                                new TransactWrite("KvTable", new UpdateItem(key(k)).update("SET t = :i").value(":i", n(i))),
                                new TransactWrite("KvTable", new PutItem(Item.builder().s("pk", k + "x").n("t", i).build()))));
                        model.put(k, model.getOrDefault(k, Item.builder().s("pk", k).build()).with("t", n(i)));
                        model.put(k + "x", Item.builder().s("pk", k + "x").n("t", i).build());
                    }
                }
                if (i % 25 == 24) {
                    // Every request was acknowledged (SYNC, one at a time): a power loss now keeps all of them.
                    assertThat(afterPowerLoss(vfs, "KvTable")).as("after op " + i).isEqualTo(new HashSet<>(model.values()));
                    compared++;
                }
            }
            assertThat(contents(db, "KvTable")).as("the live table").isEqualTo(new HashSet<>(model.values()));
        }
        assertThat(compared).isEqualTo(ops / 25);
    }

    @Test
    void shouldKeepConcurrentSyncWritesAcknowledgedBeforeThePowerLoss() throws Exception {
        MemVfs vfs = new MemVfs();
        int writers = 3;
        int crashes = Integer.getInteger("semantics.durability.crashes", 4);
        int maxPerWriter = Integer.getInteger("semantics.durability.writes", 3_000);
        AtomicIntegerArray acked = new AtomicIntegerArray(writers);
        AtomicBoolean stop = new AtomicBoolean();
        try (Database db = Database.open(DIR, options(vfs, Durability.SYNC))) {
            db.createTable(TableSpec.builder("Log").partitionKey("pk", AttributeValue.Type.S)
                    .sortKey("sk", AttributeValue.Type.N).build());
            List<CompletableFuture<Void>> running = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                // writers keep going until the power losses are done (or a cap), so that losses strike mid-stream
                running.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; !stop.get() && i < maxPerWriter; i++) {
                        db.putItem("Log", new PutItem(Item.builder().s("pk", "W" + writer).n("sk", i).build()));
                        acked.set(writer, i + 1);
                    }
                }));
            }
            int lost = 0;
            long checked = 0;
            try {
                for (int crash = 0; crash < crashes; crash++) {
                    int[] before = new int[writers];
                    for (int w = 0; w < writers; w++) {
                        before[w] = acked.get(w);
                    }
                    Set<Item> survived = afterPowerLoss(vfs, "Log");
                    for (int w = 0; w < writers; w++) {
                        for (int i = 0; i < before[w]; i++) {
                            checked++;
                            if (!survived.contains(Item.builder().s("pk", "W" + w).n("sk", i).build())) {
                                lost++;
                            }
                        }
                    }
                }
            } finally {
                stop.set(true);
            }
            CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);
            System.out.println("sync power losses: " + crashes + ", acknowledged writes checked: " + checked
                    + ", lost: " + lost);
            assertThat(checked).isPositive();
            assertThat(lost).isZero();
        }
    }

    @Test
    void shouldKeepRequestsThatAskForSyncOnADatabaseThatDoesNot() {
        MemVfs vfs = new MemVfs();
        try (Database db = Database.open(DIR, options(vfs, Durability.NONE))) {
            db.createTable(TableSpec.builder("KvTable").partitionKey("pk", AttributeValue.Type.S).build());
            Table t = db.table("KvTable");
            t.putItem(new PutItem(Item.builder().s("pk", "put").build()).durability(Durability.SYNC));
            t.updateItem(new UpdateItem(key("upd")).update("SET v = :v").value(":v", n(1)).durability(Durability.SYNC));
            db.transactWriteItems(List.of(new TransactWrite("KvTable", new PutItem(Item.builder().s("pk", "tx1").build())),
                    new TransactWrite("KvTable", new PutItem(Item.builder().s("pk", "tx2").build()))), null, Durability.SYNC);
            t.putItem(new PutItem(Item.builder().s("pk", "del").build()).durability(Durability.SYNC));
            t.deleteItem(new DeleteItem(key("del")).durability(Durability.SYNC));
            assertThat(afterPowerLoss(vfs, "KvTable")).containsExactlyInAnyOrder(Item.builder().s("pk", "put").build(),
                    Item.builder().s("pk", "upd").n("v", 1).build(), Item.builder().s("pk", "tx1").build(),
                    Item.builder().s("pk", "tx2").build());
        }
    }

    @Test
    void shouldKeepCreatedUpdatedAndDeletedTablesThroughAPowerLoss() {
        MemVfs vfs = new MemVfs();
        try (Database db = Database.open(DIR, options(vfs, Durability.NONE))) {
            TableSpec orders = TableSpec.builder("Orders").partitionKey("pk", AttributeValue.Type.S)
                    .sortKey("sk", AttributeValue.Type.N).partitions(8).build();
            db.createTable(orders);
            db.createTable(TableSpec.builder("Doomed").partitionKey("pk", AttributeValue.Type.B).build());
            try (Database recovered = Database.open(DIR, options(vfs.crashClone(), Durability.SYNC))) {
                assertThat(recovered.listTables()).containsExactly("Doomed", "Orders");
                assertThat(recovered.describeTable("Orders").spec()).isEqualTo(orders);
            }
            TableSpec withIndex = TableSpec.builder("Orders").partitionKey("pk", AttributeValue.Type.S)
                    .sortKey("sk", AttributeValue.Type.N).partitions(8)
                    .index(IndexSpec.global("ByCustomer", KeyAttribute.s("customer"), null)).build();
            db.updateTable(withIndex);
            db.deleteTable("Doomed");
            try (Database recovered = Database.open(DIR, options(vfs.crashClone(), Durability.SYNC))) {
                assertThat(recovered.listTables()).containsExactly("Orders");
                assertThat(recovered.describeTable("Orders").spec()).isEqualTo(withIndex);
                // and the recovered table works
                recovered.table("Orders").putItem(Item.builder().s("pk", "o").n("sk", 1).build());
                assertThat(recovered.table("Orders").getItem(Key.of("pk", s("o"), "sk", n(1)))).isPresent();
            }
        }
    }
}
