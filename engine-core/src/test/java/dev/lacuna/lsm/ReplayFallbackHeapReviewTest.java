package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Review of b6feb27: {@link ReplayHeapTest}'s promise (an open needs heap for its unflushed writes about once) on
 * the replay's other path. One log record that writes a key twice sends its partition's writes through
 * {@link Memtable#add} one by one, copied out of the nodes the decoders placed in an arena of their own; that arena
 * stays reachable (Replay's lists, applyTo's argument) until the last write is copied, so the open holds every write
 * twice. Before b6feb27 the decoded arrays were cleared as they were added. The same 100 MB as ReplayHeapTest, in
 * the same 185 MB. The fallback now adds the placed nodes themselves in log order ({@link Memtable#recoveredInLogOrder}),
 * copying nothing but keys.
 */
class ReplayFallbackHeapReviewTest {
    @TempDir
    Path tmp;

    @Test
    void shouldOpenInTheSameHeapWhenARecordWritesAKeyTwice() throws Exception {
        Path dir = tmp.resolve("db");
        assertThat(ChildJvm.run("-Xmx1g", ReplayFallbackHeapReviewChild.class, dir.toString(), "100"))
                .anyMatch(l -> l.equals("wrote 100000"));
        assertThat(ChildJvm.run("-Xmx185m", ReplayHeapChild.class, "open", dir.toString())).as("the open's report")
                .anyMatch(l -> l.startsWith("opened "));
    }
}
