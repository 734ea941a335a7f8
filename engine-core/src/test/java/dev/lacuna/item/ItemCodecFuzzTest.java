package dev.lacuna.item;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.Item;
import java.time.Duration;
import org.junit.jupiter.api.function.Executable;

/**
 * Fuzzes {@link ItemCodec#decode} with arbitrary bytes: it may only answer with an item or a
 * {@link CorruptionException} naming the file and an offset inside the input; any other exception
 * (IndexOutOfBounds, NegativeArraySize, OutOfMemory, StackOverflow, a ValidationException) fails. An
 * accepted input must re-encode to exactly itself (the codec is canonical), which also checks that the
 * decoded item is a valid one.
 *
 * <p>Without {@code JAZZER_FUZZ} (every {@code mvn test}) each method runs once per input stored in
 * {@code src/test/resources/dev/lacuna/item/ItemCodecFuzzTestInputs/<method name>/}: hand-made seeds (a
 * valid item of every type, the deepest allowed nesting, a count far beyond the input, overlong varints,
 * malformed UTF-8, empty and duplicated sets, non-canonical numbers) and any crash a fuzzing session found
 * (kept, renamed {@code finding-*}). To fuzz one method:
 * <pre>JAZZER_FUZZ=1 mvn -pl engine-core test -Dtest='ItemCodecFuzzTest#decode'</pre>
 */
class ItemCodecFuzzTest {
    private static final boolean FUZZING = !System.getenv().getOrDefault("JAZZER_FUZZ", "").isEmpty();
    private static final Duration REGRESSION_TIMEOUT = Duration.ofSeconds(30);
    private static final String FILE = "fuzz.sst";
    private static final long BASE = 1L << 40;

    /** The input is an encoded item. */
    @FuzzTest(maxDuration = "2m")
    void decode(byte[] input) throws Throwable {
        withHangGuard(() -> {
            Item item;
            try {
                item = ItemCodec.decode(input, 0, input.length, FILE, BASE);
            } catch (CorruptionException e) {
                checkReported(e, input.length);
                return;
            }
            assertThat(ItemCodec.encode(item)).isEqualTo(input);
            assertThat(ItemSize.of(item)).isNotNegative();
        });
    }

    private static void checkReported(CorruptionException e, int length) {
        assertThat(e.file()).isEqualTo(FILE);
        assertThat(e.offset()).isBetween(BASE, BASE + length);
    }

    /** As in {@code WalReaderFuzzTest}: a preemptive timeout in regression mode only (jazzer issue #930). */
    private static void withHangGuard(Executable check) throws Throwable {
        if (FUZZING) {
            check.execute();
        } else {
            assertTimeoutPreemptively(REGRESSION_TIMEOUT, check);
        }
    }
}
