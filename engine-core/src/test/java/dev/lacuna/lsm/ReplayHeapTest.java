package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opening a store needs heap for its unflushed writes about once, not twice: recovery places each write it decodes
 * straight into its memtable's memory and links it there ({@link Memtable#recovered}); holding decoded copies until
 * the end of the build needed twice the unflushed log's size (100 MB of unflushed writes did not open in 210 MB of
 * heap).
 * A child JVM ({@link ReplayHeapChild}) writes 100 MB that no memtable limit flushes and halts; another opens the
 * store in 185 MB, which fits one copy and the memtable's overhead, and not two.
 */
class ReplayHeapTest {
    @TempDir
    Path tmp;

    @Test
    void shouldOpenAStoreWhoseUnflushedWritesTakeMoreThanHalfTheHeap() throws Exception {
        Path dir = tmp.resolve("db");
        assertThat(ChildJvm.run("-Xmx1g", ReplayHeapChild.class, "write", dir.toString(), "100"))
                .anyMatch(l -> l.equals("wrote 100000"));
        assertThat(ChildJvm.run("-Xmx185m", ReplayHeapChild.class, "open", dir.toString())).as("the open's report")
                .anyMatch(l -> l.startsWith("opened ") && l.contains("memtableBytes=108000000"));
    }
}
