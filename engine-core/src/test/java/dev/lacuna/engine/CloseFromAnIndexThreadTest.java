package dev.lacuna.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.KeyAttribute;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A close called on an index maintainer's thread (made through IndexContext.newThread, as the GSI updater's are)
 * while another thread's close joins that thread must return at once: waiting for the close under way, which waits
 * for the calling thread, hangs both. Catches a maintainer's thread left out of the threads the database's close
 * does not wait on.
 */
class CloseFromAnIndexThreadTest {
    private static final Path DIR = Path.of("/db");
    private static final long WAIT_SECONDS = 20;

    @Test
    void shouldReturnFromACloseOnAMaintainersThreadWhileAnotherCloseJoinsIt() throws Exception {
        ThreadedIndexKind kind = new ThreadedIndexKind();
        DatabaseOptions options = DatabaseOptions.builder().vfs(new MemVfs()).build();
        ItemEngine engine = ItemEngine.open(DIR, options, List.of(kind), TtlSweeper::start);
        engine.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                .index(IndexSpec.global("ByA", KeyAttribute.s("a"), null)).build());
        AtomicReference<Throwable> indexClose = new AtomicReference<>();
        AtomicReference<Boolean> indexCloseReturned = new AtomicReference<>(false);
        kind.onStop = name -> { // on the maintainer's thread, once the first close (joining it) told it to stop
            try {
                engine.close();
                indexCloseReturned.set(true);
            } catch (Throwable t) {
                indexClose.set(t);
            }
        };

        Thread first = new Thread(engine::close, "first-close");
        first.setDaemon(true);
        first.start();
        first.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));

        assertThat(first.isAlive()).as("the first close (joining the maintainer's thread) returned").isFalse();
        assertThat(indexCloseReturned.get()).as("the close on the maintainer's thread returned").isTrue();
        assertThat(indexClose.get()).as("the close on the maintainer's thread").isNull();
        assertThat(kind.unclosed()).as("maintainers left open").isEmpty();
        kind.onStop = name -> { };
        ItemEngine.open(DIR, options, List.of(kind), TtlSweeper::start).close(); // the directory was released
    }
}
