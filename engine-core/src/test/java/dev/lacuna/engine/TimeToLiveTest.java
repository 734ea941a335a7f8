package dev.lacuna.engine;

import dev.lacuna.vfs.testing.ManualClock;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.BatchGetItem;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.GetItem;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.Scan;
import dev.lacuna.TableSpec;
import dev.lacuna.TimeToLiveDescription;
import dev.lacuna.TimeToLiveProgress;
import dev.lacuna.TimeToLiveStatus;
import dev.lacuna.TransactGet;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Time to live by a clock the test moves: which items expire (a number of epoch seconds at or before now, not
 * more than five years old), that reads hide them until the sweeper deletes them (or return them, if asked),
 * that the sweeper's delete loses to an update that moved the expiry, the rules of {@code updateTimeToLive},
 * the setting across a power loss, and the sweeper's thread stopping with the database. The sweeper's passes
 * run on the test's thread ({@link TtlSweeper#sweepOnce}); its own thread rests an hour meanwhile.
 */
class TimeToLiveTest {
    private static final Path DIR = Path.of("/db");
    private static final String T = "Sessions";

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final MemVfs vfs = new MemVfs();

    private ItemEngine open(MemVfs v, boolean returnExpired) {
        return ItemEngine.open(DIR, DatabaseOptions.builder().vfs(v).clock(clock).returnExpiredItems(returnExpired)
                .timeToLiveSweepInterval(Duration.ofHours(1)).build());
    }

    private long now() {
        return clock.instant().getEpochSecond();
    }

    private static void create(ItemEngine e, int partitions) {
        e.createTable(TableSpec.builder(T).partitionKey("pk", AttributeValue.Type.S).sortKey("sk", AttributeValue.Type.S)
                .partitions(partitions).build());
    }

    private static Item session(String pk, String sk, AttributeValue expiresAt) {
        Item item = Item.builder().s("pk", pk).s("sk", sk).s("user", "ana").build();
        return expiresAt == null ? item : item.with("expiresAt", expiresAt);
    }

    private static Key key(String pk, String sk) {
        return Key.of("pk", s(pk), "sk", s(sk));
    }

    private static List<String> sortKeys(List<Item> items) {
        return items.stream().map(i -> ((AttributeValue.S) i.get("sk")).value()).toList();
    }

    private static List<String> scanAll(ItemEngine e) {
        return sortKeys(e.scan(T, new Scan()).items());
    }

    private static List<String> queryAll(ItemEngine e) {
        return sortKeys(e.query(T, new Query("pk = :p").value(":p", s("u1"))).items());
    }

    @Test
    void shouldDeleteNoFasterThanTheConfiguredRate() {
        // 41 expired items at 200 a second: 40 gaps of 5 ms between the deletes, so the pass takes 200 ms at
        // least (a lower bound only: a slow machine takes longer, never shorter).
        try (ItemEngine e = ItemEngine.open(DIR, DatabaseOptions.builder().vfs(vfs).clock(clock)
                .timeToLiveSweepInterval(Duration.ofHours(1)).timeToLiveSweepRate(200).build())) {
            create(e, 1);
            for (int i = 0; i < 41; i++) {
                e.putItem(T, new PutItem(session("u1", "s" + i, n(now() - 1))));
            }
            e.updateTimeToLive(T, "expiresAt", true);
            long start = System.nanoTime();
            assertThat(e.sweeper().sweepOnce()).isEqualTo(41);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        }
    }

    @Test
    void shouldReportTheSweepersProgressInDescribeTable() {
        try (ItemEngine e = open(vfs, false)) {
            create(e, 2);
            assertThat(e.describeTable(T).timeToLiveProgress()).as("never swept").isEqualTo(TimeToLiveProgress.NONE);
            long start = now();
            for (int i = 0; i < 30; i++) {
                e.putItem(T, new PutItem(session("u" + i, "s", n(start + (i < 12 ? 60 : 3600)))));
            }
            e.updateTimeToLive(T, "expiresAt", true);
            e.sweeper().sweepOnce();
            Instant first = clock.instant();
            assertThat(e.describeTable(T).timeToLiveProgress()).as("a pass that found nothing expired")
                    .isEqualTo(new TimeToLiveProgress(1, first, false, 30, 0));

            clock.advance(Duration.ofSeconds(90));
            assertThat(e.sweeper().sweepOnce()).isEqualTo(12);
            assertThat(e.describeTable(T).timeToLiveProgress()).as("a pass that deleted 12 of 30")
                    .isEqualTo(new TimeToLiveProgress(2, clock.instant(), false, 30, 12));

            clock.advance(Duration.ofSeconds(10));
            e.sweeper().sweepOnce();
            assertThat(e.describeTable(T).timeToLiveProgress()).as("18 left to read, deletions since the open")
                    .isEqualTo(new TimeToLiveProgress(3, clock.instant(), false, 18, 12));
        }
    }

    @Test
    void shouldHideExpiredItemsFromEveryReadAndSweepThemByTheInjectedClock() {
        try (ItemEngine e = open(vfs, false)) {
            create(e, 1);
            long start = now();
            e.putItem(T, new PutItem(session("u1", "a-in-60s", n(start + 60))));
            e.putItem(T, new PutItem(session("u1", "b-in-120s", n(start + 120))));
            e.putItem(T, new PutItem(session("u1", "c-no-ttl", null)));
            e.putItem(T, new PutItem(session("u1", "d-string", s(String.valueOf(start - 10)))));
            e.putItem(T, new PutItem(session("u1", "e-six-years-ago", n(start - 6L * 365 * 86400))));
            e.putItem(T, new PutItem(session("u1", "f-now", n(start))));
            e.putItem(T, new PutItem(session("u1", "g-number-set", AttributeValue.ns(String.valueOf(start - 10)))));
            List<String> all = List.of("a-in-60s", "b-in-120s", "c-no-ttl", "d-string", "e-six-years-ago", "f-now",
                    "g-number-set");
            assertThat(queryAll(e)).as("before time to live is enabled").isEqualTo(all);
            assertThat(e.sweeper().sweepOnce()).as("deleted with time to live disabled").isZero();

            e.updateTimeToLive(T, "expiresAt", true);
            assertThat(queryAll(e)).as("an expiry at exactly now has passed").containsExactly("a-in-60s", "b-in-120s",
                    "c-no-ttl", "d-string", "e-six-years-ago", "g-number-set");

            clock.advance(Duration.ofSeconds(90));
            List<String> visible = List.of("b-in-120s", "c-no-ttl", "d-string", "e-six-years-ago", "g-number-set");
            assertThat(queryAll(e)).as("query").isEqualTo(visible);
            assertThat(scanAll(e)).as("scan").isEqualTo(visible);
            assertThat(e.getItem(T, new GetItem(key("u1", "a-in-60s")))).as("getItem").isEmpty();
            assertThat(e.getItem(T, new GetItem(key("u1", "b-in-120s")))).as("getItem").isPresent();
            assertThat(e.batchGetItem(new BatchGetItem().get(T, key("u1", "a-in-60s")).get(T, key("u1", "b-in-120s")))
                    .responses().get(T)).extracting(i -> i.get("sk")).containsExactly(s("b-in-120s"));
            assertThat(e.transactGetItems(List.of(new TransactGet(T, new GetItem(key("u1", "a-in-60s"))),
                    new TransactGet(T, new GetItem(key("u1", "c-no-ttl")))))).extracting(Optional::isPresent)
                    .containsExactly(false, true);
            assertThat(e.query(T, new Query("pk = :p").value(":p", s("u1"))).scannedCount())
                    .as("hidden items are read, and counted as scanned").isEqualTo(7);

            assertThat(e.sweeper().sweepOnce()).as("items swept").isEqualTo(2);
            assertThat(e.sweeper().sweepOnce()).as("items swept again").isZero();
            assertThat(e.sweeper().deleted()).isEqualTo(2);
            e.updateTimeToLive(T, "expiresAt", false);
            assertThat(queryAll(e)).as("with time to live disabled: what the sweeper left").isEqualTo(visible);
        }
    }

    @Test
    void shouldReturnExpiredItemsUntilSweptWhenTheOptionSaysSo() {
        try (ItemEngine e = open(vfs, true)) {
            create(e, 1);
            e.putItem(T, new PutItem(session("u1", "a", n(now() + 60))));
            e.updateTimeToLive(T, "expiresAt", true);
            clock.advance(Duration.ofSeconds(61));
            assertThat(e.getItem(T, new GetItem(key("u1", "a")))).as("expired, not swept, returned").isPresent();
            assertThat(queryAll(e)).containsExactly("a");
            assertThat(e.sweeper().sweepOnce()).isEqualTo(1);
            assertThat(e.getItem(T, new GetItem(key("u1", "a")))).isEmpty();
        }
    }

    @Test
    void shouldLetAnUpdateThatMovedTheExpiryWinOverTheSweepersDelete() {
        try (ItemEngine e = open(vfs, false)) {
            create(e, 1);
            long expiredAt = now() - 1;
            e.putItem(T, new PutItem(session("u1", "a", n(expiredAt))));
            e.updateTimeToLive(T, "expiresAt", true);
            // The sweeper found it expired at expiredAt; before its delete, a user extends the session.
            e.updateItem(T, new UpdateItem(key("u1", "a")).update("SET expiresAt = :later").value(":later", n(now() + 3600)));
            assertThat(e.sweeper().deleteIfStillExpired(T, key("u1", "a"), "expiresAt", n(expiredAt)))
                    .as("delete by a stale expiry").isFalse();
            assertThat(e.getItem(T, new GetItem(key("u1", "a")))).isPresent();
            assertThat(e.sweeper().sweepOnce()).isZero();
        }
    }

    @Test
    void shouldSweepInBatchesAcrossPartitions() {
        try (ItemEngine e = open(vfs, false)) {
            create(e, 4);
            e.updateTimeToLive(T, "expiresAt", true);
            int expired = 3 * TtlSweeper.BATCH + 7;
            List<String> kept = new ArrayList<>();
            for (int i = 0; i < expired + 50; i++) {
                boolean expires = i < expired;
                String pk = "u" + (i % 37);
                e.putItem(T, new PutItem(session(pk, String.format("s%04d", i), n(now() + (expires ? 10 : 10_000)))));
                if (!expires) {
                    kept.add(pk + "/" + String.format("s%04d", i));
                }
            }
            clock.advance(Duration.ofSeconds(11));
            assertThat(e.sweeper().sweepOnce()).isEqualTo(expired);
            e.updateTimeToLive(T, "expiresAt", false);
            List<String> left = new ArrayList<>();
            for (Item i : e.scan(T, new Scan()).items()) {
                left.add(((AttributeValue.S) i.get("pk")).value() + "/" + ((AttributeValue.S) i.get("sk")).value());
            }
            assertThat(left).containsExactlyInAnyOrderElementsOf(kept);
        }
    }

    @Test
    void shouldApplyDynamoDbsRulesToUpdateTimeToLive() {
        try (ItemEngine e = open(vfs, false)) {
            create(e, 1);
            assertThat(e.describeTimeToLive(T)).isEqualTo(TimeToLiveDescription.DISABLED);
            assertThat(e.describeTable(T).timeToLive().status()).isEqualTo(TimeToLiveStatus.DISABLED);
            refused(() -> e.updateTimeToLive(T, "", true), "1 validation error detected: Value '' at "
                    + "'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length "
                    + "greater than or equal to 1");
            refused(() -> e.updateTimeToLive(T, "x".repeat(256), true), "1 validation error detected: Value '"
                    + "x".repeat(256) + "' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: "
                    + "Member must have length less than or equal to 255");
            refused(() -> e.updateTimeToLive(T, "expiresAt", false), "TimeToLive is already disabled");

            assertThat(e.updateTimeToLive(T, "expiresAt", true)).isEqualTo(TimeToLiveDescription.enabled("expiresAt"));
            assertThat(e.describeTable(T).timeToLive()).isEqualTo(TimeToLiveDescription.enabled("expiresAt"));
            refused(() -> e.updateTimeToLive(T, "expiresAt", true), "TimeToLive is already enabled");
            refused(() -> e.updateTimeToLive(T, "ttl", true), "TimeToLive is already enabled");
            refused(() -> e.updateTimeToLive(T, "ttl", false), "One or more parameter values were invalid: "
                    + "TimeToLive is enabled on attribute expiresAt, not ttl");
            assertThat(e.describeTimeToLive(T)).as("after refusals").isEqualTo(TimeToLiveDescription.enabled("expiresAt"));

            assertThat(e.updateTimeToLive(T, "expiresAt", false)).isEqualTo(TimeToLiveDescription.DISABLED);
            assertThat(e.updateTimeToLive(T, "ttl", true)).isEqualTo(TimeToLiveDescription.enabled("ttl"));
            assertThatThrownBy(() -> e.updateTimeToLive("Nope", "ttl", true)).isInstanceOf(ResourceNotFoundException.class)
                    .hasMessage("Requested resource not found: Table: Nope not found");
            assertThatThrownBy(() -> e.describeTimeToLive("Nope")).isInstanceOf(ResourceNotFoundException.class);
        }
    }

    @Test
    void shouldKeepTheSettingAcrossReopenAndPowerLossAndDropItWithTheTable() {
        try (ItemEngine e = open(vfs, false)) {
            create(e, 1);
            e.updateTimeToLive(T, "expiresAt", true);
            e.putItem(T, new PutItem(session("u1", "a", n(now() + 60))));
        }
        clock.advance(Duration.ofSeconds(61));
        try (ItemEngine e = open(vfs, false)) {
            assertThat(e.describeTimeToLive(T)).isEqualTo(TimeToLiveDescription.enabled("expiresAt"));
            assertThat(e.getItem(T, new GetItem(key("u1", "a")))).as("expired, after a reopen").isEmpty();
            e.updateTimeToLive(T, "expiresAt", false);
            MemVfs crashed = vfs.crashClone(); // power lost with the database open
            try (ItemEngine after = open(crashed, false)) {
                assertThat(after.describeTimeToLive(T)).isEqualTo(TimeToLiveDescription.DISABLED);
                assertThat(after.getItem(T, new GetItem(key("u1", "a")))).isPresent();
                after.updateTimeToLive(T, "expiresAt", true);
                after.deleteTable(T);
                create(after, 1);
                assertThat(after.describeTimeToLive(T)).as("a new table of the same name").isEqualTo(TimeToLiveDescription.DISABLED);
            }
        }
    }

    @Test
    @Timeout(30)
    void shouldStopTheSweepersThreadOnClose() {
        ItemEngine e = open(vfs, false);
        assertThat(e.sweeper().running()).isTrue();
        assertThat(threadsNamed(TtlSweeper.THREAD_NAME)).isPositive();
        e.close(); // wakes it from its hour's rest: the test would time out otherwise
        assertThat(e.sweeper().running()).as("sweeper running after close").isFalse();
        e.close(); // idempotent
    }

    private static long threadsNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).count();
    }

    @Test
    void shouldJudgeExpiryByNumberAndFiveYearWindow() {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        TimeToLive.Expiry x = TimeToLive.expiry("t", now);
        long s = now.getEpochSecond();
        assertThat(x.expired(n(s))).isTrue();
        assertThat(x.expired(n(s + 1))).isFalse();
        assertThat(x.expired(AttributeValue.n("1767225599.5"))).isTrue();
        assertThat(x.expired(AttributeValue.n("1767225600.5"))).isFalse();
        long fiveYearsAgo = Instant.parse("2021-01-01T00:00:00Z").getEpochSecond();
        assertThat(x.expired(n(fiveYearsAgo))).as("exactly five years old").isTrue();
        assertThat(x.expired(n(fiveYearsAgo - 1))).as("more than five years old").isFalse();
        assertThat(x.expired(n(s * 1000))).as("milliseconds: far in the future").isFalse();
        assertThat(x.expired(n(0))).isFalse();
        assertThat(x.expired(s(String.valueOf(s - 1)))).isFalse();
        assertThat(x.expired((AttributeValue) null)).isFalse();
    }

    private static void refused(Runnable call, String message) {
        assertThatThrownBy(call::run).isInstanceOf(ValidationException.class).hasMessage(message);
    }
}
