package dev.lacuna.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Turns a JMH JSON result file ({@code -rf json -rff file.json}) into Markdown: the run's settings, one
 * table row per benchmark (threads, params, mean score ± 99.9% error, median, min – max of the iterations,
 * unit) and, when the file holds {@code WalAppendBenchmark} results, the ratios its goals are judged by —
 * always between figures of the same run, since shared machines are too noisy to compare across runs.
 * For {@code KvStoreBenchmark} results it adds the Lacuna/RocksDB ratio of every workload and thread
 * count (methods {@code fillSeq1}/{@code fillSeq2}, ..., {@code seekNext10_1}/{@code seekNext10_2}, paired
 * by their {@code engine} parameter).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.lacuna.bench.report.JmhReport wal-append.json
 * </pre>
 */
public final class JmhReport {
    /** A ratio of two WalAppendBenchmark methods and the least it should reach. */
    private record Goal(String numerator, String denominator, double atLeast) {
    }

    private static final List<Goal> WAL_GOALS = List.of(
            new Goal("lacunaSync1", "rocksdbSyncPut1", 1.0),
            new Goal("lacunaSync8", "rocksdbSyncPut8", 1.0),
            new Goal("lacunaSync32", "rawWriteForce", 10.0));

    /**
     * One benchmark's primary result: mean score and its 99.9% error, and the median, smallest and
     * largest of the measurement iterations.
     */
    record Row(String benchmark, int threads, String params, Map<String, String> paramMap, double score,
               double error, double median, double min, double max, double p99, String mode, String unit) {
        /** The method name: the part after the last dot. */
        String method() {
            return benchmark.substring(benchmark.lastIndexOf('.') + 1);
        }

        /** Class and method, without the package. */
        String shortName() {
            int method = benchmark.lastIndexOf('.');
            return benchmark.substring(benchmark.lastIndexOf('.', method - 1) + 1);
        }
    }

    private JmhReport() {
    }

    /**
     * Prints the Markdown report of the JMH JSON file named by the first argument; with {@code --svg FILE}
     * also writes the chart of queue-read time against history when the file holds QueueBenchmark results.
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1 && !(args.length == 3 && args[1].equals("--svg"))) {
            System.err.println("usage: JmhReport <jmh-result.json> [--svg <queue-chart.svg>]");
            System.exit(2);
        }
        String json = Files.readString(Path.of(args[0]), StandardCharsets.UTF_8);
        System.out.print(render(json));
        if (args.length == 3) {
            List<Row> rows = rows(json);
            if (rows.stream().noneMatch(r -> r.benchmark().contains(QueueReport.QUEUE))) {
                System.err.println("no QueueBenchmark results in " + args[0] + ": no chart written");
                System.exit(1);
            }
            Map<String, Object> first = asMap(asList(Json.parse(json)).get(0));
            String caption = command(first) + " — " + settings(first);
            Files.writeString(Path.of(args[2]), QueueReport.svg(rows, caption), StandardCharsets.UTF_8);
            System.out.println("\nChart written to " + args[2]);
        }
    }

    /** The rows of a JMH JSON result document, in its order. */
    static List<Row> rows(String json) {
        List<Map<String, Object>> results = asList(Json.parse(json));
        return results.stream().map(JmhReport::row).toList();
    }

    /** The Markdown report of a JMH JSON result document. */
    public static String render(String json) {
        List<Map<String, Object>> results = asList(Json.parse(json));
        StringBuilder out = new StringBuilder();
        if (results.isEmpty()) {
            return "No results.\n";
        }
        out.append(settings(results.get(0))).append("\n\n");
        out.append("| Benchmark | Threads | Params | Score ± error | Median | Min – max | Unit |\n");
        out.append("|---|---:|---|---:|---:|---:|---|\n");
        List<Row> rows = results.stream().map(JmhReport::row).toList();
        for (Row r : rows) {
            out.append(String.format(Locale.ROOT, "| %s | %d | %s | %s ± %s | %s | %s – %s | %s |%n",
                    r.shortName(), r.threads(), r.params(), format(r.score()), format(r.error()),
                    format(r.median()), format(r.min()), format(r.max()), r.unit()));
        }
        if (rows.stream().anyMatch(r -> r.benchmark().contains(".WalAppendBenchmark."))) {
            out.append('\n').append(walRatios(rows));
        }
        if (rows.stream().anyMatch(r -> r.benchmark().contains(KV))) {
            out.append('\n').append(kvRatios(rows));
        }
        if (rows.stream().anyMatch(r -> r.benchmark().contains(QueueReport.QUEUE))) {
            out.append('\n').append(QueueReport.tables(rows));
        }
        return out.toString();
    }

    /**
     * The ratios of the write-ahead-log issue. Medians, not means: on a shared disk one stalled iteration
     * drags a mean (and its error bar) far more than it says about either engine. The range pairs the
     * extreme iterations (worst numerator with best denominator and the reverse).
     */
    private static String walRatios(List<Row> rows) {
        StringBuilder out = new StringBuilder();
        out.append("| Ratio (of medians) | Value | Range (extreme iterations) | Goal | Met |\n");
        out.append("|---|---:|---:|---:|---|\n");
        for (Goal g : WAL_GOALS) {
            Optional<Row> a = find(rows, g.numerator());
            Optional<Row> b = find(rows, g.denominator());
            String name = g.numerator() + " / " + g.denominator();
            String goal = String.format(Locale.ROOT, "≥ %.1f×", g.atLeast());
            if (a.isEmpty() || b.isEmpty()) {
                out.append(String.format(Locale.ROOT, "| %s | n/a | | %s | not measured |%n", name, goal));
                continue;
            }
            double ratio = a.get().median() / b.get().median();
            String range = String.format(Locale.ROOT, "%.2f× – %.2f×", a.get().min() / b.get().max(),
                    a.get().max() / b.get().min());
            out.append(String.format(Locale.ROOT, "| %s | %.2f× | %s | %s | %s |%n", name, ratio, range, goal,
                    ratio >= g.atLeast() ? "yes" : "**no**"));
        }
        return out.toString();
    }

    private static final String KV = ".KvStoreBenchmark.";
    /** Goal of every KvStoreBenchmark method at every thread count: Lacuna at least as fast as RocksDB. */
    private static final double KV_GOAL = 1.0;

    /**
     * Lacuna/RocksDB ratios of the KvStoreBenchmark, one row per workload, thread count and remaining
     * parameters (such as {@code keys}): the two engines' medians side by side, the ratio of the medians,
     * the range pairing extreme iterations, and whether the goal (≥ 1.0×) is met.
     */
    private static String kvRatios(List<Row> rows) {
        record Key(String workload, int threads, String params) {
        }
        Map<Key, Row[]> pairs = new LinkedHashMap<>(); // [lacuna, rocksdb]
        for (Row r : rows) {
            if (!r.benchmark().contains(KV)) {
                continue;
            }
            String engine = r.paramMap().get("engine");
            int slot = "lacuna".equals(engine) ? 0 : "rocksdb".equals(engine) ? 1 : -1;
            if (slot < 0) {
                continue;
            }
            String rest = r.paramMap().entrySet().stream()
                    .filter(e -> !e.getKey().equals("engine") && !e.getValue().equals("N/A"))
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(", "));
            pairs.computeIfAbsent(new Key(kvWorkload(r.method()), r.threads(), rest), k -> new Row[2])[slot] = r;
        }
        List<Map.Entry<Key, Row[]>> sorted = new ArrayList<>(pairs.entrySet());
        sorted.sort(Comparator.comparing((Map.Entry<Key, Row[]> e) -> kvOrder(e.getKey().workload()))
                .thenComparing(e -> e.getKey().workload())
                .thenComparing(e -> e.getKey().params())
                .thenComparingInt(e -> e.getKey().threads()));
        StringBuilder out = new StringBuilder();
        String unit = rows.stream().filter(r -> r.benchmark().contains(KV)).findFirst().map(Row::unit).orElse("");
        out.append("| Workload | Threads | Params | Lacuna (median, " + unit + ") | RocksDB (median, " + unit
                + ") | Lacuna / RocksDB | Range (extreme iterations) | Goal | Met |\n");
        out.append("|---|---:|---|---:|---:|---:|---:|---:|---|\n");
        String goal = String.format(Locale.ROOT, "≥ %.1f×", KV_GOAL);
        int met = 0;
        int measured = 0;
        for (Map.Entry<Key, Row[]> e : sorted) {
            Key k = e.getKey();
            Row lacuna = e.getValue()[0];
            Row rocks = e.getValue()[1];
            String params = k.params().isEmpty() ? "—" : k.params();
            if (lacuna == null || rocks == null) {
                out.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | n/a | | %s | not measured |%n",
                        k.workload(), k.threads(), params, lacuna == null ? "—" : format(lacuna.median()),
                        rocks == null ? "—" : format(rocks.median()), goal));
                continue;
            }
            double ratio = lacuna.median() / rocks.median();
            measured++;
            met += ratio >= KV_GOAL ? 1 : 0;
            out.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %.2f× | %.2f× – %.2f× | %s | %s |%n",
                    k.workload(), k.threads(), params, format(lacuna.median()), format(rocks.median()), ratio,
                    lacuna.min() / rocks.max(), lacuna.max() / rocks.min(), goal,
                    ratio >= KV_GOAL ? "yes" : "**no**"));
        }
        out.append(String.format(Locale.ROOT, "%nGoal met in %d of %d workload × thread-count pairs.%n",
                met, measured));
        return out.toString();
    }

    /** The workload of a KvStoreBenchmark method: its name without the thread-count suffix. */
    static String kvWorkload(String method) {
        if (method.matches(".*_\\d+")) {
            return method.substring(0, method.lastIndexOf('_'));
        }
        return method.replaceFirst("\\d+$", "");
    }

    private static int kvOrder(String workload) {
        int i = List.of("fillSeq", "fillRandom", "overwrite", "readRandom", "seekNext10").indexOf(workload);
        return i < 0 ? Integer.MAX_VALUE : i;
    }

    private static Optional<Row> find(List<Row> rows, String method) {
        return rows.stream()
                .filter(r -> r.benchmark().contains(".WalAppendBenchmark.") && r.method().equals(method))
                .findFirst();
    }

    private static Row row(Map<String, Object> result) {
        Map<String, Object> primary = asMap(result.get("primaryMetric"));
        Map<String, Object> percentiles = asMap(primary.get("scorePercentiles"));
        Object params = result.get("params");
        Map<String, String> paramMap = new LinkedHashMap<>();
        if (params != null) {
            asMap(params).forEach((k, v) -> paramMap.put(k, String.valueOf(v)));
        }
        String paramText = paramMap.isEmpty() ? "—" : paramMap.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(", "));
        return new Row((String) result.get("benchmark"), (int) number(result.get("threads")), paramText, paramMap,
                number(primary.get("score")), number(primary.get("scoreError")),
                number(percentiles.get("50.0")), number(percentiles.get("0.0")),
                number(percentiles.get("100.0")), number(percentiles.getOrDefault("99.0", "NaN")),
                (String) result.get("mode"), (String) primary.get("scoreUnit"));
    }

    /** The command line that runs the first result's benchmark class with the run's settings. */
    static String command(Map<String, Object> first) {
        String benchmark = (String) first.get("benchmark");
        int method = benchmark.lastIndexOf('.');
        String className = benchmark.substring(benchmark.lastIndexOf('.', method - 1) + 1, method);
        return String.format(Locale.ROOT, "java -jar benchmarks/target/benchmarks.jar %s -f %d -wi %d -w %s -i %d -r %s",
                className, (int) number(first.get("forks")), (int) number(first.get("warmupIterations")),
                compact(first.get("warmupTime")), (int) number(first.get("measurementIterations")),
                compact(first.get("measurementTime")));
    }

    /** JMH writes times as "2 s"; its command line takes "2s". */
    private static String compact(Object time) {
        return String.valueOf(time).replace(" ", "");
    }

    /** The JMH and JDK versions and iteration settings, which every quoted figure must name. */
    private static String settings(Map<String, Object> first) {
        return String.format(Locale.ROOT,
                "JMH %s, JDK %s (%s), %d fork(s), warmup %d × %s, measurement %d × %s; %d cores on the"
                        + " machine rendering this report.",
                first.get("jmhVersion"), first.get("jdkVersion"), first.get("vmName"),
                (int) number(first.get("forks")), (int) number(first.get("warmupIterations")),
                first.get("warmupTime"), (int) number(first.get("measurementIterations")),
                first.get("measurementTime"), Runtime.getRuntime().availableProcessors());
    }

    /** A JSON number; JMH writes NaN and infinities as the strings "NaN", "Infinity", "-Infinity". */
    private static double number(Object value) {
        if (value instanceof Double d) {
            return d;
        }
        if (value instanceof String s) {
            return Double.parseDouble(s);
        }
        throw new IllegalArgumentException("not a number: " + value);
    }

    static String format(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        double abs = Math.abs(value);
        return String.format(Locale.ROOT, abs >= 100 ? "%,.0f" : abs >= 1 ? "%.2f" : "%.4f", value);
    }

    @SuppressWarnings("unchecked")
    private static <T> List<T> asList(Object value) {
        if (!(value instanceof List)) {
            throw new IllegalArgumentException("expected a JSON array, found " + value);
        }
        return (List<T>) value;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object value) {
        if (!(value instanceof Map)) {
            throw new IllegalArgumentException("expected a JSON object, found " + value);
        }
        return (Map<String, Object>) value;
    }
}
