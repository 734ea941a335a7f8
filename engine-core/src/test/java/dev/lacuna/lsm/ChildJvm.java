package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Runs a main class of the tests in a child JVM (this one's {@code java} and class path), for a heap of its own. */
final class ChildJvm {
    private ChildJvm() {
    }

    /**
     * Runs {@code main} with {@code heap} (as {@code -Xmx128m}) and G1, and returns what it printed (standard output
     * and error); fails unless it exits 0 within 180 s.
     */
    static List<String> run(String heap, Class<?> main, String... args) throws IOException, InterruptedException {
        Path out = Files.createTempFile("child-jvm", ".out");
        // A temporary directory of the child's own: a child that halts never deletes its copy of LZ4's native
        // library (deleteOnExit needs an exit), which left one in the system's at each run.
        Path childTmp = Files.createTempDirectory("child-jvm-tmp");
        try {
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), heap, "-XX:+UseG1GC",
                    "-Djava.io.tmpdir=" + childTmp, "-cp", System.getProperty("java.class.path"), main.getName()));
            command.addAll(List.of(args));
            Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!child.waitFor(180, TimeUnit.SECONDS)) {
                child.destroyForcibly();
                throw new AssertionError(main.getSimpleName() + " did not end within 180 s");
            }
            List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
            assertThat(child.exitValue()).as("the exit of %s; it printed %s", main.getSimpleName(),
                    lines.subList(0, Math.min(lines.size(), 20))).isZero();
            return lines;
        } finally {
            Files.deleteIfExists(out);
            try (Stream<Path> left = Files.list(childTmp)) {
                for (Path p : left.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(childTmp);
        }
    }
}
