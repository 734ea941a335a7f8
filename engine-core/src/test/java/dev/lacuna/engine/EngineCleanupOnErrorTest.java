package dev.lacuna.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.KeyAttribute;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Every failure once the catalog has started index maintainers must close them, an Error as much as a
 * RuntimeException: the item engine's constructor failing after its catalog was built (its sweeper's thread failing
 * to start, as Thread.start does when no thread can be made) closed the store but left the catalog's maintainers
 * running; the catalog's close stopped at the first maintainer whose close threw an Error; and a table's open that
 * failed with an Error on one index left the indexes opened before it open (and, in a create, the table recorded).
 */
class EngineCleanupOnErrorTest {
    private static final Path DIR = Path.of("/db");
    private static final String TABLE = "Tickets";

    private final MemVfs vfs = new MemVfs();
    private final DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
    private final ThreadedIndexKind kind = new ThreadedIndexKind();

    private ItemEngine open(Consumer<TtlSweeper> startSweeper) {
        return ItemEngine.open(DIR, options, List.of(kind), startSweeper);
    }

    private ItemEngine open() {
        return open(TtlSweeper::start);
    }

    private static TableSpec table() {
        return TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S)
                .index(IndexSpec.global("ByA", KeyAttribute.s("a"), null))
                .index(IndexSpec.global("ByB", KeyAttribute.s("b"), null)).build();
    }

    private void createTable() {
        try (ItemEngine engine = open()) {
            engine.createTable(table());
        }
        assertThat(kind.unclosed()).isEmpty();
    }

    private void assertEveryMaintainerStopped() {
        assertThat(kind.unclosed()).as("maintainers left open").isEmpty();
        assertThat(kind.opened.stream().filter(ThreadedIndexKind.Maintainer::running).map(m -> m.name).toList())
                .as("maintainers whose thread still runs").isEmpty();
    }

    @Test
    void shouldCloseTheCatalogWhenTheSweeperFailsToStart() {
        createTable();
        assertThatThrownBy(() -> open(sweeper -> {
            throw new OutOfMemoryError("injected: unable to create native thread");
        })).isInstanceOf(OutOfMemoryError.class);
        assertEveryMaintainerStopped();
        try (ItemEngine again = open()) {
            assertThat(again.listTables()).containsExactly(TABLE);
        }
    }

    @Test
    void shouldCloseTheCatalogWhenTheConstructorThrowsAfterIt() {
        createTable();
        assertThatThrownBy(() -> open(sweeper -> {
            throw new IllegalStateException("injected after the catalog");
        })).isInstanceOf(IllegalStateException.class);
        assertEveryMaintainerStopped();
    }

    @Test
    void shouldCloseEveryMaintainerWhenOneFailsToClose() {
        ItemEngine engine = open();
        engine.createTable(table());
        kind.failCloseOf = "ByA";
        assertThatThrownBy(engine::close).isInstanceOf(AssertionError.class).hasMessageContaining("injected");
        assertEveryMaintainerStopped();
        kind.failCloseOf = null;
        open().close(); // the directory was released
    }

    @Test
    void shouldCloseTheIndexesOpenedBeforeOneFailsToOpen() {
        createTable();
        kind.failOpenOf = "ByB";
        assertThatThrownBy(this::open).isInstanceOf(AssertionError.class).hasMessageContaining("injected");
        assertEveryMaintainerStopped();
        kind.failOpenOf = null;
        open().close();
    }

    @Test
    void shouldUndoACreateWhoseIndexFailsToOpen() {
        try (ItemEngine engine = open()) {
            kind.failOpenOf = "ByB";
            assertThatThrownBy(() -> engine.createTable(table())).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("injected");
            assertEveryMaintainerStopped();
            kind.failOpenOf = null;
            assertThat(engine.listTables()).isEmpty();
        }
        try (ItemEngine again = open()) {
            assertThat(again.listTables()).as("tables after the failed create, reopened").isEmpty();
            again.createTable(table());
        }
        assertEveryMaintainerStopped();
    }

    @Test
    void shouldUndoAnUpdateWhoseIndexFailsToOpen() {
        try (ItemEngine engine = open()) {
            engine.createTable(TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S).build());
            kind.failOpenOf = "ByB";
            assertThatThrownBy(() -> engine.updateTable(table())).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("injected");
            assertEveryMaintainerStopped();
            kind.failOpenOf = null;
            assertThat(engine.describeTable(TABLE).indexes()).isEmpty();
        }
        try (ItemEngine again = open()) {
            assertThat(again.describeTable(TABLE).indexes()).as("indexes after the failed update, reopened").isEmpty();
        }
    }
}
