package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Query;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.MemVfs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * From the review of the carrying checkpoint: a queue under churn passes a routine GSI checkpoint (behind the last
 * record, carrying the young keys), then power is lost; after the reopen an (eventually consistent) query of the
 * queue must be exactly the open set. Fails without the wait after the open (Queries.awaitConsistent): entries open
 * at the checkpoint and carried in memory are missing until the log after it is applied again.
 */
class RoutineCheckpointCrashTest {

    private static String pad(int i) {
        return String.format("%08d", i);
    }

    @Test
    void queueAfterPowerLossPastARoutineCheckpointHoldsExactlyTheOpenTickets() {
        MemVfs vfs = new MemVfs();
        TreeMap<String, String> open = new TreeMap<>(); // GSI1SK -> pk
        TreeMap<String, String> skOf = new TreeMap<>(); // pk -> its GSI1SK
        MemVfs crashed = null;
        long checkpointAtCrash = -1;
        long appliedAtCrash = -1;
        try (Database db = Database.open(IndexEquivalenceTest.DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                    .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
            Table t = db.table("Tickets");
            String name = "index-" + db.describeTable("Tickets").index("GSI1").keyspace();
            long initial = IndexCrashTest.durableCheckpoints(vfs).get(name);
            int seq = 0;
            for (int i = 0; crashed == null; i++) {
                if (i > 120_000) {
                    throw new AssertionError("no routine checkpoint in 120000 writes");
                }
                String pk = "T" + i;
                String sk = pad(++seq);
                t.putItem(Item.builder().s("pk", pk).s("GSI1PK", "Q").s("GSI1SK", sk).build());
                open.put(sk, pk);
                skOf.put(pk, sk);
                if (i >= 300) {
                    int j = i - 300;
                    String old = "T" + j;
                    String oldSk = skOf.get(old);
                    if (j % 1000 == 0) {
                        // stays open for good
                    } else if (j % 7 == 0 && oldSk != null && !oldSk.endsWith("r")) {
                        // moved to the back of the queue: the entry's key changes
                        String nsk = pad(++seq) + "r";
                        t.putItem(Item.builder().s("pk", old).s("GSI1PK", "Q").s("GSI1SK", nsk).build());
                        open.remove(oldSk);
                        open.put(nsk, old);
                        skOf.put(old, nsk);
                    } else if (oldSk != null) {
                        t.deleteItem(Key.of("pk", AttributeValue.s(old)));
                        open.remove(oldSk);
                        skOf.remove(old);
                    }
                }
                if (i > 50_000 && i % 500 == 0) {
                    long cp = IndexCrashTest.durableCheckpoints(vfs).get(name);
                    long applied = db.describeTable("Tickets").index("GSI1").appliedLsn();
                    if (cp > initial && cp < applied) {
                        crashed = vfs.crashClone(); // every write so far was acknowledged (durable)
                        checkpointAtCrash = cp;
                        appliedAtCrash = applied;
                    }
                }
            }
        }
        System.out.println("routine checkpoint crash: checkpoint " + checkpointAtCrash + ", applied " + appliedAtCrash
                + ", open " + open.size());
        try (Database db = Database.open(IndexEquivalenceTest.DIR, DatabaseOptions.builder().vfs(crashed).build())) {
            Table t = db.table("Tickets");
            List<String> seen = new ArrayList<>();
            for (Item item : t.queryPaginator(new Query("GSI1PK = :q").index("GSI1").value(":q", AttributeValue.s("Q")))
                    .items()) {
                seen.add(item.getString("GSI1SK") + "=" + item.getString("pk"));
            }
            List<String> expected = new ArrayList<>();
            open.forEach((sk, pk) -> expected.add(sk + "=" + pk));
            assertThat(seen).as("the queue right after the reopen, without readYourWrites").isEqualTo(expected);
            List<String> again = new ArrayList<>();
            for (Item item : t.queryPaginator(new Query("GSI1PK = :q").index("GSI1").value(":q", AttributeValue.s("Q"))
                    .readYourWrites(Duration.ofSeconds(60))).items()) {
                again.add(item.getString("GSI1SK") + "=" + item.getString("pk"));
            }
            assertThat(again).isEqualTo(expected);
        }
    }
}
