package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A write that runs the heap out is told so only if none of it is logged: a caller told the write failed must not
 * find it after a reopen, nor see part of the batch meanwhile. The memtable copies each entry into its own memory,
 * so a large value needs a second copy there; made after the log append, that copy failing left the record in the
 * log (replayed at the next open) while the caller was told {@link OutOfMemoryError} and no part or only part of the
 * batch was visible. A child JVM with a small heap ({@link OutOfMemoryAtCommitChild}) writes values of a rising share
 * of its heap, so that the heap runs out at one step of the commit or another; whatever it was told, the store must
 * then hold all of the batch or none of it, as the caller was told.
 */
class OutOfMemoryAtCommitTest {
    private static final int[] PERCENTS = {20, 22, 24, 26, 28, 30};

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"puts", "delete"})
    void shouldKeepAWriteThatRanOutOfMemoryOnlyIfAcknowledged(String mode) throws Exception {
        List<String> failures = new ArrayList<>();
        int outOfMemory = 0;
        for (int percent : PERCENTS) {
            Path dir = tmp.resolve(mode + percent);
            List<String> lines = ChildJvm.run("-Xmx128m", OutOfMemoryAtCommitChild.class, dir.toString(), mode,
                    Integer.toString(percent));
            boolean acknowledged = lines.contains("told acknowledged");
            if (!acknowledged) {
                assertThat(lines).as("the child's report").anyMatch(l -> l.startsWith("told OutOfMemoryError"));
                outOfMemory++;
            }
            String expected = "small=" + acknowledged + " big=" + acknowledged + " gone="
                    + (acknowledged && mode.equals("delete"));
            String before = lines.stream().filter(l -> l.startsWith("before ")).findFirst().orElse("before ?");
            String after;
            try (LsmStore kv = LsmStore.open(dir, KvOptions.builder().build())) {
                after = "small=" + (kv.get(b("small")) != null) + " big=" + (kv.get(b("big")) != null) + " gone="
                        + (kv.get(b("gone")) == null);
            }
            if (!before.equals("before " + expected) || !after.equals(expected)) {
                failures.add(percent + "% " + told(lines) + ": " + before + ", after a reopen " + after);
            }
        }
        assertThat(outOfMemory).as("writes that ran the heap out (else this tests nothing)").isPositive();
        assertThat(failures).as("writes whose outcome differs from what the caller was told").isEmpty();
    }

    private static String told(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("told ")).findFirst().orElse("told ?");
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
