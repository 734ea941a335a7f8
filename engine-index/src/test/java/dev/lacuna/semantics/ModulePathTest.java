package dev.lacuna.semantics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.Database;
import dev.lacuna.secondary.GlobalIndexKind;
import dev.lacuna.storage.LacunaException;
import example.ReadmeExample;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lacuna as a user of the module system gets it: the three engine modules (and lz4) on the module path, no
 * package split between them, and the README example — compiled outside every Lacuna package — running
 * against what they export, with the index kinds found through the module's {@code provides}.
 */
class ModulePathTest {
    @TempDir
    Path dir;

    @Test
    void shouldRunTheReadmeExampleFromTheModulePath() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "--module-path", modulePath(), "--add-modules", "dev.lacuna.secondary",
                "-cp", location(ReadmeExample.class), "example.ReadmeExample")
                .directory(dir.toFile()).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the example finished").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("queue: 1 open, closed: S[value=CLOSED], queue after: 0 open");
        assertThat(dir.resolve("helpdesk-data").resolve("CURRENT")).exists();
    }

    @Test
    void shouldResolveTheModulesWithJdepsWithoutSplitPackages() throws Exception {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        StringWriter out = new StringWriter();
        int code = jdeps.run(new PrintWriter(out), new PrintWriter(out), "--module-path", modulePath(),
                "--check", "dev.lacuna.wal,dev.lacuna.core,dev.lacuna.secondary");
        assertThat(code).as(out.toString()).isZero();
        assertThat(out.toString()).doesNotContainIgnoringCase("split package").doesNotContain("Error");
    }

    /** The engine modules as the build made them (classes directories or jars), and lz4. */
    private static String modulePath() throws URISyntaxException, ClassNotFoundException {
        List<String> entries = List.of(location(LacunaException.class), location(Database.class),
                location(GlobalIndexKind.class), location(Class.forName("net.jpountz.lz4.LZ4Factory")));
        return String.join(File.pathSeparator, entries);
    }

    private static String location(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
