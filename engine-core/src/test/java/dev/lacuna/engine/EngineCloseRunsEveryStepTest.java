package dev.lacuna.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lacuna.AttributeValue;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.KeyAttribute;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsLock;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The item engine's close runs every step whatever the earlier ones threw, and reports every failure: when the
 * catalog's close failed (an index maintainer's close threw) and the store's close, run after it, failed too (here
 * releasing its lock), the store's failure was thrown and the catalog's lost without a word.
 */
class EngineCloseRunsEveryStepTest {
    private static final Path DIR = Path.of("/db");

    /** Fails (once released) the release of the store's own lock while {@link #failRelease} is set. */
    private static final class FailingRelease extends ForwardingVfs {
        volatile boolean failRelease;

        FailingRelease(MemVfs inner) {
            super(inner);
        }

        @Override
        public VfsLock lock(Path lockFile) throws IOException {
            VfsLock lock = super.lock(lockFile);
            if (!lockFile.equals(DIR.resolve("LOCK"))) {
                return lock;
            }
            return () -> {
                lock.close(); // released: only the report fails
                if (failRelease) {
                    throw new IOException("injected: releasing the store's lock");
                }
            };
        }
    }

    @Test
    void shouldReportTheCatalogsFailureAndTheStoresBoth() {
        FailingRelease vfs = new FailingRelease(new MemVfs());
        ThreadedIndexKind kind = new ThreadedIndexKind();
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        ItemEngine engine = ItemEngine.open(DIR, options, List.of(kind), TtlSweeper::start);
        engine.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                .index(IndexSpec.global("ByA", KeyAttribute.s("a"), null)).build());
        kind.failCloseOf = "ByA";
        vfs.failRelease = true;

        Throwable thrown = catchThrowable(engine::close);

        assertThat(thrown).as("the close's failure: the first step's that failed, the catalog's")
                .isInstanceOf(AssertionError.class).hasMessageContaining("injected: closing index ByA");
        assertThat(thrown.getSuppressed()).as("the store's failure, after the catalog's")
                .anySatisfy(s -> assertThat(s).hasStackTraceContaining("injected: releasing the store's lock"));
        assertThat(kind.unclosed()).as("maintainers left open").isEmpty();
        kind.failCloseOf = null;
        vfs.failRelease = false;
        ItemEngine.open(DIR, options, List.of(kind), TtlSweeper::start).close(); // the directory was released
    }
}
