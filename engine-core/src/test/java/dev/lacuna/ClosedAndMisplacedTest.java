package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.IncompatibleStoreException;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What embedders trip over: a database used after {@code close()} answers nothing, also from its in-memory
 * catalog; a file given as the directory is refused as a Lacuna error that says so.
 */
class ClosedAndMisplacedTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldRefuseCatalogCallsAfterClose() {
        Database db = Database.open(DIR, DatabaseOptions.builder().vfs(new MemVfs()).build());
        try {
            db.createTable(TableSpec.builder("Things").partitionKey("pk", AttributeValue.Type.S).build());
            assertThat(db.listTables()).containsExactly("Things");
        } finally {
            db.close();
        }

        assertThatThrownBy(db::listTables).isInstanceOf(DatabaseClosedException.class);
        assertThatThrownBy(() -> db.describeTable("Things")).isInstanceOf(DatabaseClosedException.class);
        assertThatThrownBy(() -> db.table("Things")).isInstanceOf(DatabaseClosedException.class);
        assertThatThrownBy(() -> db.listTagsOfResource("Things")).isInstanceOf(DatabaseClosedException.class);
        assertThatThrownBy(() -> db.describeTimeToLive("Things")).isInstanceOf(DatabaseClosedException.class);
        assertThatThrownBy(db::stats).isInstanceOf(DatabaseClosedException.class);
        assertThatThrownBy(() -> db.scan("Things", new Scan())).isInstanceOf(DatabaseClosedException.class);
    }

    @Test
    void shouldRefuseAFileGivenAsTheDirectory(@TempDir Path tmp) throws Exception {
        Path file = Files.writeString(tmp.resolve("notes.txt"), "not a database");

        assertThatThrownBy(() -> Database.open(file)).isInstanceOf(IncompatibleStoreException.class)
                .hasMessage("cannot open a store in " + file + ": " + file + " is a file, not a directory");
        assertThat(Files.readString(file)).isEqualTo("not a database");
    }

    @Test
    void shouldRefuseAFileGivenAsTheDirectoryInMemoryToo() throws Exception {
        MemVfs vfs = new MemVfs();
        vfs.mkdirs(Path.of("/x"));
        vfs.create(Path.of("/x/f")).close();

        assertThatThrownBy(() -> Database.open(Path.of("/x/f"), DatabaseOptions.builder().vfs(vfs).build()))
                .isInstanceOf(IncompatibleStoreException.class).hasMessageContaining("is a file, not a directory");
    }
}
