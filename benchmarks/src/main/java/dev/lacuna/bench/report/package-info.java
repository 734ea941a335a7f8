/**
 * Turns JMH results into Markdown. {@link JmhReport} reads a JSON result file ({@code -rf json}) and prints
 * the run's settings, one row per benchmark and the ratios the goals are judged by (WAL group commit against
 * its baselines, Lacuna against RocksDB per workload), always between figures of the same run, since shared
 * machines are too noisy to compare across runs. {@link Json} is the minimal reader it needs: jmh-core ships
 * no JSON parser, and one file format does not justify a dependency.
 *
 * <p>A command-line tool, not a library: it depends on no other Lacuna package and on nothing but the JDK, so
 * it can render result files from any machine.
 */
package dev.lacuna.bench.report;
