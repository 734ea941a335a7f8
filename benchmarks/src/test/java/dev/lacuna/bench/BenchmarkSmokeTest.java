package dev.lacuna.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Every JMH benchmark runs once, briefly, with its smallest data (TESTING.md: benchmarks are not timed in
 * CI, but a smoke run proves they work — their setups load data and their methods check what they read).
 * The figures are meaningless here and not asserted.
 */
class BenchmarkSmokeTest {

    @Test
    void shouldRunEveryBenchmarkOnceWithItsSmallestData() throws RunnerException {
        Options options = new OptionsBuilder()
                .include("dev\\.lacuna\\.bench\\..*Benchmark\\..*")
                .forks(0) // in this JVM: a fork would need the shaded jar, which is built after the tests
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(100))
                .param("keys", "10000")
                .param("tickets", "2000")
                .param("closed", "1000")
                .shouldFailOnError(true)
                .verbosity(org.openjdk.jmh.runner.options.VerboseMode.SILENT)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        Set<String> classes = new TreeSet<>();
        for (RunResult r : results) {
            String label = r.getParams().getBenchmark();
            classes.add(label.substring(0, label.lastIndexOf('.')));
        }
        System.out.println("benchmark smoke runs: " + results.size() + " in " + classes);
        assertThat(classes).contains("dev.lacuna.bench.WalAppendBenchmark", "dev.lacuna.bench.KvStoreBenchmark",
                "dev.lacuna.bench.ItemBenchmark", "dev.lacuna.bench.QueueBenchmark");
        assertThat(results).allSatisfy(r -> assertThat(r.getPrimaryResult().getSampleCount()).isPositive());
    }
}
