package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opening a store needs heap for its unflushed writes about once, not twice: recovery decodes the log's writes and
 * then copies each into a memtable's memory ({@link Memtable#recovered}); holding the decoded copies until the end
 * of the build needed twice the unflushed log's size (100 MB of unflushed writes did not open in 210 MB of heap).
 * A child JVM ({@link ReplayHeapChild}) writes 100 MB that no memtable limit flushes and halts; another opens the
 * store in 185 MB, which fits one copy and the memtable's overhead, and not two.
 */
class ReplayHeapTest {
    @TempDir
    Path tmp;

    @Test
    void shouldOpenAStoreWhoseUnflushedWritesTakeMoreThanHalfTheHeap() throws Exception {
        Path dir = tmp.resolve("db");
        assertThat(run("-Xmx1g", "write", dir.toString(), "100")).anyMatch(l -> l.equals("wrote 100000"));
        assertThat(run("-Xmx185m", "open", dir.toString())).as("the open's report")
                .anyMatch(l -> l.startsWith("opened ") && l.contains("memtableBytes=108000000"));
    }

    private static List<String> run(String heap, String... args) throws IOException, InterruptedException {
        Path out = Files.createTempFile("replay-heap", ".out");
        try {
            List<String> command = new java.util.ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), heap, "-XX:+UseG1GC", "-cp",
                    System.getProperty("java.class.path"), ReplayHeapChild.class.getName()));
            command.addAll(List.of(args));
            Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!child.waitFor(180, TimeUnit.SECONDS)) {
                child.destroyForcibly();
                throw new AssertionError("the child did not end within 180 s");
            }
            List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
            assertThat(child.exitValue()).as("the child's exit; it printed %s", lines.subList(0,
                    Math.min(lines.size(), 20))).isZero();
            return lines;
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
