package dev.lacuna.semantics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import example.ReadmeExample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's embedding example: the README shows exactly {@link ReadmeExample}'s code, which runs on real files. */
class ReadmeExampleTest {
    @TempDir
    Path dir;

    @Test
    void shouldRunTheHelpdeskExampleOfTheReadmeOnRealFiles() {
        ReadmeExample.Seen seen = ReadmeExample.run(dir.resolve("helpdesk-data"));

        assertThat(seen.queue().items()).extracting(i -> i.get("pk")).containsExactly(AttributeValue.s("TICKET#1042"));
        assertThat(seen.queueAfter().items()).isEmpty();
        assertThat(seen.closed().has("GSI1PK")).isFalse();
        assertThat(seen.closed().get("status")).isEqualTo(AttributeValue.s("CLOSED"));
        assertThat(Files.exists(dir.resolve("helpdesk-data").resolve("CURRENT"))).isTrue();
    }

    @Test
    void shouldShowTheExampleInTheReadmeExactlyAsItRuns() throws IOException {
        List<String> source = Files.readAllLines(Path.of("src/test/java/example/ReadmeExample.java"));
        List<String> example = source.subList(source.indexOf("        // --- README example, from here") + 1,
                source.indexOf("            // --- to here"));
        // The README's block is the same code, eight columns to the left, opening the directory by name.
        StringBuilder expected = new StringBuilder();
        for (String line : example) {
            expected.append(line.isEmpty() ? "" : line.substring(8)).append('\n');
        }
        String readme = Files.readString(Path.of("../README.md"));
        assertThat(readme).contains(expected.toString().replace("Database.open(dir)", "Database.open(Path.of(\"helpdesk-data\"))"));
    }
}
