package dev.lacuna.semantics;

import dev.lacuna.vfs.testing.ManualClock;
import dev.lacuna.AttributeValue;
import dev.lacuna.CancellationReason;
import dev.lacuna.ConditionCheck;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.DeleteItem;
import dev.lacuna.GetItem;
import dev.lacuna.IdempotentParameterMismatchException;
import dev.lacuna.Item;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.Scan;
import dev.lacuna.Table;
import dev.lacuna.TransactGet;
import dev.lacuna.TransactWrite;
import dev.lacuna.TransactionCanceledException;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import dev.lacuna.storage.Durability;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.semantics.SemanticsFixtures.DIR;
import static dev.lacuna.semantics.SemanticsFixtures.key;
import static dev.lacuna.semantics.SemanticsFixtures.stringTable;
import static dev.lacuna.semantics.SemanticsFixtures.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.vfs.MemVfs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * transactWriteItems and transactGetItems as DynamoDB defines them: all or nothing across tables, one
 * cancellation reason per item in request order, condition checks, client request tokens that make a
 * retry a no-op for ten minutes (also across a restart), and reads that see a transaction whole or not at all.
 */
class SemanticsTransactionTest {

    private final MemVfs vfs = new MemVfs();
    private final ManualClock clock = new ManualClock(Instant.parse("2024-01-01T00:00:00Z"));
    private Database db;
    private Table accounts;
    private Table log;

    private Database openDb() {
        return Database.open(DIR, DatabaseOptions.builder().vfs(vfs).clock(clock).build());
    }

    @BeforeEach
    void open() {
        db = openDb();
        accounts = table(db, "Accounts", AttributeValue.Type.S, null);
        log = stringTable(db, "Log");
        accounts.putItem(account("A", 60));
        accounts.putItem(account("B", 40));
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static Item account(String id, long balance) {
        return Item.builder().s("pk", id).n("bal", balance).build();
    }

    /** Moves {@code amount} from one account to another; the condition refuses an overdraft. */
    private static List<TransactWrite> transfer(String from, String to, long amount) {
        return List.of(new TransactWrite("Accounts", new UpdateItem(key(from)).update("SET bal = bal - :x")
                        .condition("bal >= :x").value(":x", n(amount))),
                new TransactWrite("Accounts", new UpdateItem(key(to)).update("SET bal = bal + :x").value(":x", n(amount))));
    }

    private long balance(String id) {
        return ((AttributeValue.N) accounts.getItem(key(id)).orElseThrow().get("bal")).value().longValueExact();
    }

    private static List<String> codes(TransactionCanceledException e) {
        return e.reasons().stream().map(CancellationReason::code).toList();
    }

    @Test
    void shouldApplyEveryKindOfWriteAcrossTables() {
        accounts.putItem(account("C", 0));
        log.putItem(Item.builder().s("pk", "L").s("sk", "old").build());
        db.transactWriteItems(List.of(
                transfer("A", "B", 10).get(0),
                transfer("A", "B", 10).get(1),
                new TransactWrite("Log", new PutItem(Item.builder().s("pk", "L").s("sk", "t1").build())
                        .condition("attribute_not_exists(pk)")),
                new TransactWrite("Log", new DeleteItem(key("L", "old")).condition("attribute_exists(pk)")),
                new TransactWrite("Accounts", new ConditionCheck(key("C"), "attribute_exists(bal)"))));
        assertThat(balance("A")).isEqualTo(50);
        assertThat(balance("B")).isEqualTo(50);
        assertThat(log.query(new Query("pk = :l").value(":l", s("L"))).items())
                .containsExactly(Item.builder().s("pk", "L").s("sk", "t1").build());
    }

    @Test
    void shouldCancelEverythingAndGiveOneReasonPerItemInOrder() {
        Item a = account("A", 60);
        List<TransactWrite> items = List.of(
                new TransactWrite("Log", new PutItem(Item.builder().s("pk", "L").s("sk", "t1").build())),
                new TransactWrite("Accounts", new UpdateItem(key("A")).update("SET bal = :z").value(":z", n(0))
                        .condition("bal > :big").value(":big", n(1000)).returnItemOnConditionFailure(true)),
                new TransactWrite("Accounts", new DeleteItem(key("B"))),
                new TransactWrite("Accounts", new ConditionCheck(key("C"), "attribute_exists(pk)")
                        .returnItemOnConditionFailure(true)),
                new TransactWrite("Log", new PutItem(Item.builder().s("pk", "L").s("sk", "t2").build())));
        assertThatThrownBy(() -> db.transactWriteItems(items))
                .isInstanceOfSatisfying(TransactionCanceledException.class, e -> {
                    assertThat(codes(e)).containsExactly("None", "ConditionalCheckFailed", "None",
                            "ConditionalCheckFailed", "None");
                    assertThat(e.reasons().get(1).currentItem()).contains(a);
                    assertThat(e.reasons().get(3).currentItem()).isEmpty(); // C does not exist
                    assertThat(e.reasons().get(0).currentItem()).isEmpty();
                });
        assertThat(balance("A")).isEqualTo(60);
        assertThat(balance("B")).isEqualTo(40);
        assertThat(log.scan(new Scan()).items()).isEmpty();
    }

    @Test
    void shouldCancelWithAValidationErrorWhenAnUpdateCannotApplyToTheItem() {
        accounts.putItem(Item.builder().s("pk", "S").s("bal", "not a number").build());
        assertThatThrownBy(() -> db.transactWriteItems(List.of(
                transfer("A", "B", 5).get(0),
                new TransactWrite("Accounts", new UpdateItem(key("S")).update("SET bal = bal + :x").value(":x", n(5))))))
                .isInstanceOfSatisfying(TransactionCanceledException.class,
                        e -> assertThat(codes(e)).containsExactly("None", "ValidationError"));
        assertThat(balance("A")).isEqualTo(60);
    }

    @Test
    void shouldRejectTransactionsDynamoDbRejects() {
        assertThatThrownBy(() -> db.transactWriteItems(List.of(
                new TransactWrite("Accounts", new PutItem(account("A", 1))),
                new TransactWrite("Accounts", new ConditionCheck(key("A"), "attribute_exists(pk)")))))
                .isInstanceOf(ValidationException.class);
        List<TransactWrite> tooMany = new ArrayList<>();
        for (int i = 0; i < 101; i++) {
            tooMany.add(new TransactWrite("Log", new PutItem(Item.builder().s("pk", "L").s("sk", "k" + i).build())));
        }
        assertThatThrownBy(() -> db.transactWriteItems(tooMany)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> db.transactWriteItems(List.of())).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> db.transactWriteItems(transfer("A", "B", 1), "x".repeat(37)))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> db.transactWriteItems(List.of(transfer("A", "B", 1).get(0),
                new TransactWrite("NoSuchTable", new DeleteItem(key("A"))))))
                .isInstanceOf(ResourceNotFoundException.class);
        assertThatThrownBy(() -> db.transactGetItems(List.of(new TransactGet("Accounts", new GetItem(key("A"))),
                new TransactGet("Accounts", new GetItem(key("A")))))).isInstanceOf(ValidationException.class);
        db.transactWriteItems(tooMany.subList(0, 100), null, Durability.SYNC);
        assertThat(balance("A")).isEqualTo(60);
        assertThat(log.scan(new Scan()).count()).isEqualTo(100);
    }

    @Test
    void shouldRunATokenedTransactionOnceEvenAcrossARestart() {
        db.transactWriteItems(transfer("A", "B", 10), "tok-1");
        db.transactWriteItems(transfer("A", "B", 10), "tok-1");
        assertThat(balance("A")).isEqualTo(50);
        // the same token for a different request is an error, not a silent no-op
        assertThatThrownBy(() -> db.transactWriteItems(transfer("A", "B", 11), "tok-1"))
                .isInstanceOf(IdempotentParameterMismatchException.class);
        db.close();
        db = openDb();
        accounts = db.table("Accounts");
        db.transactWriteItems(transfer("A", "B", 10), "tok-1");
        assertThat(balance("A")).isEqualTo(50);
        assertThat(balance("B")).isEqualTo(50);
        // ten minutes later the token is forgotten and the same request runs again
        clock.advance(Duration.ofMinutes(10).plusSeconds(1));
        db.transactWriteItems(transfer("A", "B", 10), "tok-1");
        assertThat(balance("A")).isEqualTo(40);
    }

    @Test
    void shouldTreatTheSameRequestWrittenInAnotherOrderAsTheSameForItsToken() {
        // A request is JSON to DynamoDB: the order of an item's attributes or of the expression values means nothing
        Item ab = Item.builder().s("pk", "C").n("a", 1).n("b", 2).build();
        Item ba = Item.builder().s("pk", "C").n("b", 2).n("a", 1).build();
        db.transactWriteItems(List.of(new TransactWrite("Accounts", new PutItem(ab))), "tok-order");
        db.transactWriteItems(List.of(new TransactWrite("Accounts", new PutItem(ba))), "tok-order");
        UpdateItem xy = new UpdateItem(key("C")).update("SET a = :x, b = :y").value(":x", n(5)).value(":y", n(6));
        UpdateItem yx = new UpdateItem(key("C")).update("SET a = :x, b = :y").value(":y", n(6)).value(":x", n(5));
        db.transactWriteItems(List.of(new TransactWrite("Accounts", xy)), "tok-order-2");
        db.transactWriteItems(List.of(new TransactWrite("Accounts", yx)), "tok-order-2");
        assertThat(accounts.getItem(key("C"))).contains(Item.builder().s("pk", "C").n("a", 5).n("b", 6).build());
    }

    @Test
    void shouldNotRememberTheTokenOfACancelledTransaction() {
        assertThatThrownBy(() -> db.transactWriteItems(transfer("A", "B", 100), "tok-2"))
                .isInstanceOf(TransactionCanceledException.class);
        accounts.putItem(account("A", 100));
        db.transactWriteItems(transfer("A", "B", 100), "tok-2");
        assertThat(balance("A")).isZero();
        assertThat(balance("B")).isEqualTo(140);
    }

    @Test
    void shouldReadEachRequestedItemInOrderWithMissingOnesEmpty() {
        List<Optional<Item>> read = db.transactGetItems(List.of(
                new TransactGet("Accounts", new GetItem(key("B")).projection("bal")),
                new TransactGet("Accounts", new GetItem(key("nobody"))),
                new TransactGet("Log", new GetItem(key("L", "none"))),
                new TransactGet("Accounts", new GetItem(key("A")))));
        assertThat(read).containsExactly(Optional.of(Item.of(Map.of("bal", n(40)))), Optional.empty(),
                Optional.empty(), Optional.of(account("A", 60)));
    }

    @Test
    void shouldSeeAConcurrentTransactionWholeOrNotAtAll() throws Exception {
        int rounds = Integer.getInteger("semantics.tx.rounds", 2_000);
        Random random = new Random(42);
        CompletableFuture<Integer> writer = CompletableFuture.supplyAsync(() -> {
            int committed = 0;
            for (int i = 0; i < rounds; i++) {
                boolean aToB = random.nextBoolean();
                try {
                    db.transactWriteItems(transfer(aToB ? "A" : "B", aToB ? "B" : "A", 1 + random.nextInt(30)),
                            null, Durability.NONE);
                    committed++;
                } catch (TransactionCanceledException insufficient) {
                    // the condition refused an overdraft: nothing moved, which is also consistent
                }
            }
            return committed;
        });
        List<TransactGet> both = List.of(new TransactGet("Accounts", new GetItem(key("A"))),
                new TransactGet("Accounts", new GetItem(key("B"))));
        int reads = 0;
        int torn = 0;
        Set<Long> seen = new HashSet<>();
        while (!writer.isDone() || reads == 0) {
            List<Optional<Item>> r = db.transactGetItems(both);
            long a = ((AttributeValue.N) r.get(0).orElseThrow().get("bal")).value().longValueExact();
            long b = ((AttributeValue.N) r.get(1).orElseThrow().get("bal")).value().longValueExact();
            seen.add(a);
            if (a + b != 100) {
                torn++;
            }
            reads++;
        }
        int committed = writer.get(1, TimeUnit.MINUTES);
        System.out.println("transactGet reads: " + reads + ", transfers committed: " + committed
                + ", balances seen: " + seen.size() + ", torn reads: " + torn);
        assertThat(torn).isZero();
        assertThat(committed).isPositive();
        assertThat(balance("A") + balance("B")).isEqualTo(100);
    }
}
