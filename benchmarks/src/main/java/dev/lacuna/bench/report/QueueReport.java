package dev.lacuna.bench.report;

import dev.lacuna.bench.report.JmhReport.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The QueueBenchmark part of a report: per state, a table of queue-read time against the history of closed
 * tickets for every design (mean ± error, p50 and p99 of single reads), the ratios the performance issue is
 * judged by, and an SVG chart of p50 read time against history. Ratios use the p50 of the sampled reads:
 * on a shared machine a few reads that met a collection or a compaction move a mean by more than either
 * design's difference, while the median read is what a poller meets most.
 */
final class QueueReport {
    static final String QUEUE = ".QueueBenchmark.";
    private static final List<String> DESIGNS = List.of("sparse", "statusFlag", "rocksdb", "rocksdbCompacted");
    private static final List<String> STATES = List.of("afterLoad", "churn");
    private static final String[] COLOURS = {"#1b6ac9", "#c92a2a", "#2b8a3e", "#e67700"};

    private QueueReport() {
    }

    /** The tables and ratios, in Markdown. */
    static String tables(List<Row> rows) {
        StringBuilder out = new StringBuilder();
        TreeSet<Integer> sizes = sizes(rows);
        for (String state : STATES) {
            if (rows.stream().noneMatch(r -> r.benchmark().contains(QUEUE) && state.equals(r.paramMap().get("state")))) {
                continue;
            }
            String unit = rows.stream().filter(r -> r.benchmark().contains(QUEUE)).findFirst().map(Row::unit).orElse("");
            out.append("Queue read, ").append(state).append(" (").append(unit)
                    .append("; mean ± 99.9 % error / p50 / p99 of single reads):\n\n");
            out.append("| Closed |");
            DESIGNS.forEach(d -> out.append(' ').append(d).append(" |"));
            out.append("\n|---:|");
            DESIGNS.forEach(d -> out.append("---:|"));
            out.append('\n');
            for (int size : sizes) {
                out.append(String.format(Locale.ROOT, "| %,d |", size));
                for (String design : DESIGNS) {
                    Optional<Row> r = find(rows, design, state, size);
                    out.append(' ').append(r.map(x -> JmhReport.format(x.score()) + " ± " + JmhReport.format(x.error())
                            + " / " + JmhReport.format(x.median()) + " / " + JmhReport.format(x.p99())).orElse("—"))
                            .append(" |");
                }
                out.append('\n');
            }
            out.append('\n').append(ratios(rows, state, sizes)).append('\n');
        }
        return out.toString();
    }

    private static String ratios(List<Row> rows, String state, TreeSet<Integer> sizes) {
        StringBuilder out = new StringBuilder("| Ratio (p50) | Value | Goal | Met |\n|---|---:|---:|---|\n");
        int smallest = sizes.first();
        int largest = sizes.last();
        ratio(out, "sparse " + label(largest) + " / sparse " + label(smallest), find(rows, "sparse", state, largest),
                find(rows, "sparse", state, smallest), 1.15, false);
        for (int size : sizes) {
            ratio(out, "sparse / rocksdbCompacted at " + label(size), find(rows, "sparse", state, size),
                    find(rows, "rocksdbCompacted", state, size), 1.25, false);
        }
        ratio(out, "statusFlag / sparse at " + label(largest), find(rows, "statusFlag", state, largest),
                find(rows, "sparse", state, largest), 20, true);
        return out.toString();
    }

    private static void ratio(StringBuilder out, String name, Optional<Row> a, Optional<Row> b, double goal,
                              boolean atLeast) {
        String goalText = String.format(Locale.ROOT, "%s %.2f×", atLeast ? "≥" : "≤", goal);
        if (a.isEmpty() || b.isEmpty()) {
            out.append(String.format(Locale.ROOT, "| %s | n/a | %s | not measured |%n", name, goalText));
            return;
        }
        double value = a.get().median() / b.get().median();
        boolean met = atLeast ? value >= goal : value <= goal;
        out.append(String.format(Locale.ROOT, "| %s | %.2f× | %s | %s |%n", name, value, goalText,
                met ? "yes" : "**no**"));
    }

    /**
     * A line chart: p50 read time (log scale) against closed tickets (log scale), one colour per design,
     * solid right after the load and dashed under churn, with the run's settings under it.
     */
    static String svg(List<Row> rows, String caption) {
        TreeSet<Integer> sizes = sizes(rows);
        List<Row> queue = rows.stream().filter(r -> r.benchmark().contains(QUEUE) && r.median() > 0).toList();
        double minY = queue.stream().mapToDouble(Row::median).min().orElse(1);
        double maxY = queue.stream().mapToDouble(Row::median).max().orElse(10);
        double lo = Math.floor(Math.log10(minY));
        double hi = Math.max(lo + 1, Math.ceil(Math.log10(maxY)));
        double xLo = Math.log10(sizes.first());
        double xHi = Math.max(xLo + 1, Math.log10(sizes.last()));
        int left = 70;
        int top = 30;
        int width = 560;
        int height = 320;
        StringBuilder out = new StringBuilder();
        out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"440\" font-family=\"sans-serif\""
                + " font-size=\"12\">\n<rect width=\"900\" height=\"440\" fill=\"white\"/>\n");
        out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"14\">Queue read (40 open tickets):"
                + " p50 time of one read against closed-ticket history</text>%n", left));
        for (double e = lo; e <= hi; e++) {
            double y = top + height - (e - lo) / (hi - lo) * height;
            out.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s µs</text>%n", left, y, left + width, y, left - 6,
                    y + 4, JmhReport.format(Math.pow(10, e))));
        }
        for (int size : sizes) {
            double x = left + (Math.log10(size) - xLo) / (xHi - xLo) * width;
            out.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", x, top, x, top + height, x,
                    top + height + 16, label(size)));
        }
        out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">closed tickets</text>%n",
                left + width / 2, top + height + 34));
        int legend = 0;
        for (int d = 0; d < DESIGNS.size(); d++) {
            for (String state : STATES) {
                List<String> points = new ArrayList<>();
                for (int size : sizes) {
                    Optional<Row> r = find(rows, DESIGNS.get(d), state, size);
                    if (r.isPresent() && r.get().median() > 0) {
                        double x = left + (Math.log10(size) - xLo) / (xHi - xLo) * width;
                        double y = top + height - (Math.log10(r.get().median()) - lo) / (hi - lo) * height;
                        points.add(String.format(Locale.ROOT, "%.1f,%.1f", x, y));
                    }
                }
                if (points.isEmpty()) {
                    continue;
                }
                String dash = state.equals("churn") ? " stroke-dasharray=\"6 4\"" : "";
                out.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s"
                        + " points=\"%s\"/>%n", COLOURS[d], dash, String.join(" ", points)));
                int ly = top + 10 + legend * 20;
                out.append(String.format(Locale.ROOT, "<line x1=\"660\" y1=\"%d\" x2=\"690\" y2=\"%d\" stroke=\"%s\""
                        + " stroke-width=\"2\"%s/><text x=\"696\" y=\"%d\">%s, %s</text>%n", ly, ly, COLOURS[d], dash,
                        ly + 4, DESIGNS.get(d), state));
                legend++;
            }
        }
        out.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"420\" font-size=\"10\">%s</text>%n", escape(caption)));
        return out.append("</svg>\n").toString();
    }

    private static TreeSet<Integer> sizes(List<Row> rows) {
        TreeSet<Integer> sizes = new TreeSet<>();
        rows.stream().filter(r -> r.benchmark().contains(QUEUE))
                .forEach(r -> sizes.add(Integer.parseInt(r.paramMap().get("closed"))));
        return sizes;
    }

    private static Optional<Row> find(List<Row> rows, String design, String state, int closed) {
        return rows.stream().filter(r -> r.benchmark().contains(QUEUE) && design.equals(r.paramMap().get("design"))
                && state.equals(r.paramMap().get("state")) && String.valueOf(closed).equals(r.paramMap().get("closed")))
                .findFirst();
    }

    private static String label(int size) {
        int exponent = (int) Math.round(Math.log10(size));
        if (Math.pow(10, exponent) != size) {
            return String.format(Locale.ROOT, "%,d", size);
        }
        StringBuilder label = new StringBuilder("10");
        for (char c : Integer.toString(exponent).toCharArray()) {
            label.append("⁰¹²³⁴⁵⁶⁷⁸⁹".charAt(c - '0'));
        }
        return label.toString();
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
