package dev.lacuna.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.bench.report.JmhReport.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The queue tables compute their ratios from the rows' p50s, and the chart has one line per series. */
class QueueReportTest {

    private static Row row(String design, String state, int closed, double p50) {
        return new Row("dev.lacuna.bench.QueueBenchmark.readQueue", 1, "", Map.of("design", design, "state", state,
                "closed", Integer.toString(closed)), p50 * 1.1, 1, p50, p50 / 2, p50 * 9, p50 * 3, "sample", "us/op");
    }

    private static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (int closed : new int[] {1000, 1000000}) {
            rows.add(row("sparse", "afterLoad", closed, closed == 1000 ? 10 : 12));
            rows.add(row("statusFlag", "afterLoad", closed, closed == 1000 ? 50 : 300));
            rows.add(row("rocksdb", "afterLoad", closed, 9));
            rows.add(row("rocksdbCompacted", "afterLoad", closed, 8));
        }
        return rows;
    }

    @Test
    void shouldJudgeEachGoalByTheRatioOfMedians() {
        String tables = QueueReport.tables(rows());

        assertThat(tables).contains("| sparse 10⁶ / sparse 10³ | 1.20× | ≤ 1.15× | **no** |")
                .contains("| sparse / rocksdbCompacted at 10³ | 1.25× | ≤ 1.25× | yes |")
                .contains("| sparse / rocksdbCompacted at 10⁶ | 1.50× | ≤ 1.25× | **no** |")
                .contains("| statusFlag / sparse at 10⁶ | 25.00× | ≥ 20.00× | yes |")
                .contains("| 1,000,000 | 13.20 ± 1.00 / 12.00 / 36.00 |")
                .doesNotContain("churn");
    }

    @Test
    void shouldDrawOneLinePerDesignAndStateWithTheSettingsEscaped() {
        String svg = QueueReport.svg(rows(), "JMH 1.37 <settings> & machine");

        assertThat(svg.split("<polyline", -1)).hasSize(5);
        assertThat(svg).startsWith("<svg ").endsWith("</svg>\n").contains("JMH 1.37 &lt;settings&gt; &amp; machine").contains(">10³<").contains(">10⁶<");
    }

    @Test
    void shouldNameTheCommandOfTheRunBesideTheChart() {
        Map<String, Object> first = Map.of("benchmark", "dev.lacuna.bench.QueueBenchmark.readQueue", "forks", 1.0,
                "warmupIterations", 2.0, "warmupTime", "2 s", "measurementIterations", 5.0, "measurementTime", "2 s");

        assertThat(JmhReport.command(first))
                .isEqualTo("java -jar benchmarks/target/benchmarks.jar QueueBenchmark -f 1 -wi 2 -w 2s -i 5 -r 2s");
    }
}
