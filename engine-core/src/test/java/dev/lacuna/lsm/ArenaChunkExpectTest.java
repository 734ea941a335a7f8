package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalKey;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link ArenaSkipList#expectTotal}: the next chunk is what the list's chunks lack of the size it was told (from 16 KB
 * to {@link ArenaSkipList#LARGE_CHUNK}), once; after it, or told no more than its chunks hold, the chunks double again.
 */
class ArenaChunkExpectTest {
    private static final int FIRST = 16 << 10;

    private static byte[] key(int i) {
        return InternalKey.encode(String.format("k%08d", i).getBytes(StandardCharsets.UTF_8), i + 1L,
                InternalKey.KIND_PUT);
    }

    /** Places 100-byte entries until the list takes a new chunk; returns the entries placed. */
    private static int fillUntilNewChunk(ArenaSkipList list, int from) {
        long before = list.chunkBytes();
        int i = from;
        while (list.chunkBytes() == before) {
            list.place(key(i++), new byte[100]);
        }
        return i;
    }

    @Test
    void shouldMakeTheNextChunkAsLongAsExpectedThenDoubleAgain() {
        ArenaSkipList list = new ArenaSkipList();
        int i = fillUntilNewChunk(list, 0);
        assertThat(list.chunkBytes()).as("the first chunk").isEqualTo(FIRST);

        list.expectTotal(FIRST + (1 << 20));
        i = fillUntilNewChunk(list, i);
        assertThat(list.chunkBytes()).as("the chunk after 1 MB more was expected").isEqualTo(FIRST + (1 << 20));

        i = fillUntilNewChunk(list, i);
        assertThat(list.chunkBytes()).as("told nothing more: twice the last")
                .isEqualTo(FIRST + (1 << 20) + (2 << 20));
    }

    @Test
    void shouldKeepTheNextChunkBetweenTheFirstAndTheLargeChunk() {
        ArenaSkipList list = new ArenaSkipList();
        int i = fillUntilNewChunk(list, 0);
        list.expectTotal(1L << 40);
        i = fillUntilNewChunk(list, i);
        assertThat(list.chunkBytes()).as("told a terabyte").isEqualTo(FIRST + ArenaSkipList.LARGE_CHUNK);

        ArenaSkipList small = new ArenaSkipList();
        int j = fillUntilNewChunk(small, 0);
        small.expectTotal(FIRST + 100);
        fillUntilNewChunk(small, j);
        assertThat(small.chunkBytes()).as("told 100 bytes more").isEqualTo(2 * FIRST);

        ArenaSkipList negative = new ArenaSkipList();
        int k = fillUntilNewChunk(negative, 0);
        negative.expectTotal(1 << 20);
        negative.expectTotal(FIRST / 2); // told again: less than the chunks hold
        fillUntilNewChunk(negative, k);
        assertThat(negative.chunkBytes()).as("told 1 MB, then less than it holds").isEqualTo(FIRST + 2 * FIRST);
    }
}
