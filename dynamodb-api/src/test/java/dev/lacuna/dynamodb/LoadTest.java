package dev.lacuna.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Recorder;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * A small load over loopback, bounded in count ({@code -Ddynamodb.load.ops}, per client) and so in time: concurrent
 * SDK clients, mixed operations (conditional puts, gets, counter updates, queries), and nothing lost — every
 * acknowledged put is read back, every counter equals the increments acknowledged. The same load runs on the
 * in-process client beside it. Requests per second and p99 latency are printed, never asserted (speed is measured,
 * not tested). A longer run: {@code -Ddynamodb.load.ops=N} (requests per client), {@code -Ddynamodb.load.clients=N};
 * {@code -Ddynamodb.http.nodelay=false} runs HTTP with Nagle's algorithm on, as an embedder that leaves the JDK
 * server's JVM-wide switch alone gets it ({@link EndpointOptions#jvmWideNoDelay()}).
 */
class LoadTest {
    private static final int CLIENTS = Integer.getInteger("dynamodb.load.clients", 4);
    private static final int OPS = Integer.getInteger("dynamodb.load.ops", 300);

    @Test
    void shouldLoseNothingUnderConcurrentMixedLoadOverHttpAndInProcess() throws Exception {
        for (String way : List.of("in-process", "http")) {
            try (Target target = way.equals("http") ? Target.http(EndpointOptions.builder()) : Target.inProcess()) {
                run(way, target.client);
            }
        }
    }

    private static void run(String way, DynamoDbClient dynamo) throws Exception {
        dynamo.createTable(b -> b.tableName("Load")
                .attributeDefinitions(ConformanceTest.def("pk", ScalarAttributeType.S),
                        ConformanceTest.def("sk", ScalarAttributeType.S))
                .keySchema(ConformanceTest.key("pk", KeyType.HASH), ConformanceTest.key("sk", KeyType.RANGE)));
        Recorder latencies = new Recorder(3);
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        long start = System.nanoTime();
        List<Future<long[]>> results = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int client = c;
            results.add(pool.submit(() -> work(dynamo, client, latencies)));
        }
        long puts = 0;
        long increments = 0;
        for (Future<long[]> f : results) {
            long[] r = f.get(5, TimeUnit.MINUTES);
            puts += r[0];
            increments += r[1];
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        pool.shutdown();

        long found = 0;
        long counted = 0;
        for (int c = 0; c < CLIENTS; c++) {
            String pk = "CLIENT#" + c;
            for (var page : dynamo.queryPaginator(b -> b.tableName("Load").keyConditionExpression("pk = :p")
                    .expressionAttributeValues(Map.of(":p", AttributeValue.fromS(pk))))) {
                for (Map<String, AttributeValue> item : page.items()) {
                    if (item.get("sk").s().startsWith("ITEM#")) {
                        found++;
                    } else {
                        counted += Long.parseLong(item.get("n").n());
                    }
                }
            }
        }
        assertThat(found).as("acknowledged puts read back").isEqualTo(puts);
        assertThat(counted).as("acknowledged increments counted").isEqualTo(increments);
        Histogram h = latencies.getIntervalHistogram();
        System.out.printf(Locale.ROOT, "dynamodb load, %s: %d clients x %d requests, %.0f requests/s, p50 %.2f ms,"
                        + " p99 %.2f ms, max %.2f ms; lost acknowledged writes: 0%n",
                way.equals("http") ? "http (nodelay " + Boolean.getBoolean("sun.net.httpserver.nodelay") + ")" : way,
                CLIENTS, OPS,
                h.getTotalCount() / seconds, h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3,
                h.getMaxValue() / 1e3);
    }

    /** One client's requests: returns {puts acknowledged, increments acknowledged}. */
    private static long[] work(DynamoDbClient dynamo, int client, Recorder latencies) {
        SplittableRandom random = new SplittableRandom(client);
        String pk = "CLIENT#" + client;
        long puts = 0;
        long increments = 0;
        for (int i = 0; i < OPS; i++) {
            int op = random.nextInt(10);
            long t0 = System.nanoTime();
            if (op < 4) {
                String sk = "ITEM#" + puts;
                dynamo.putItem(b -> b.tableName("Load").item(Map.of("pk", AttributeValue.fromS(pk),
                        "sk", AttributeValue.fromS(sk), "payload", AttributeValue.fromS("x".repeat(200))))
                        .conditionExpression("attribute_not_exists(pk)"));
                puts++;
            } else if (op < 7) {
                String counter = "COUNTER#" + random.nextInt(5);
                dynamo.updateItem(b -> b.tableName("Load").key(Map.of("pk", AttributeValue.fromS(pk),
                        "sk", AttributeValue.fromS(counter))).updateExpression("ADD n :one")
                        .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1")))
                        .returnValues(ReturnValue.UPDATED_NEW));
                increments++;
            } else if (op < 9) {
                long n = puts;
                dynamo.getItem(b -> b.tableName("Load").key(Map.of("pk", AttributeValue.fromS(pk),
                        "sk", AttributeValue.fromS("ITEM#" + (n == 0 ? 0 : random.nextLong(n))))));
            } else {
                dynamo.query(b -> b.tableName("Load").keyConditionExpression("pk = :p AND begins_with(sk, :c)")
                        .expressionAttributeValues(Map.of(":p", AttributeValue.fromS(pk),
                                ":c", AttributeValue.fromS("COUNTER#"))));
            }
            latencies.recordValue((System.nanoTime() - t0) / 1000);
        }
        return new long[] {puts, increments};
    }
}
