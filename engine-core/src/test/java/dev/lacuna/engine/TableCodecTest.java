package dev.lacuna.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.CorruptionException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Keyspace descriptors of every kind are read to their end: a tokens or index descriptor with bytes missing
 * or left over is damage, as FORMAT.md says (kinds 2 and 3 used to be accepted on their first two bytes).
 */
class TableCodecTest {

    @Test
    void shouldReadTokensAndIndexDescriptorsToTheirEnd() {
        assertThat(TableCodec.decode(5, TableCodec.encodeTokens()).kind()).isEqualTo(TableCodec.KIND_TOKENS);
        byte[] index = TableCodec.encodeIndex("Tickets", "GSI1");
        assertThat(TableCodec.decode(6, index).kind()).isEqualTo(TableCodec.KIND_INDEX);

        byte[] tokensPlus = Arrays.copyOf(TableCodec.encodeTokens(), 3);
        assertThatThrownBy(() -> TableCodec.decode(5, tokensPlus)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("keyspace 5").hasMessageContaining("1 bytes after the descriptor");
        byte[] indexPlus = Arrays.copyOf(index, index.length + 2);
        assertThatThrownBy(() -> TableCodec.decode(6, indexPlus)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("2 bytes after the descriptor");
        byte[] indexCut = Arrays.copyOf(index, index.length - 3);
        assertThatThrownBy(() -> TableCodec.decode(6, indexCut)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("malformed descriptor");
    }
}
