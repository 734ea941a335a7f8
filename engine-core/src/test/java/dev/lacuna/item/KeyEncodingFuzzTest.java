package dev.lacuna.item;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.lacuna.AttributeValue;
import dev.lacuna.AttributeValue.Type;
import dev.lacuna.storage.CorruptionException;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.function.Executable;

/**
 * Fuzzes {@link KeyEncoding}'s decoders with arbitrary bytes: {@code decodeKey}, {@code decodeValue} and
 * {@code partitionPrefixLength} may only answer with a value or a {@link CorruptionException} naming the
 * file and an offset inside the input; any other exception fails. What they accept must re-encode to
 * exactly the input (the encoding is canonical).
 *
 * <p>Without {@code JAZZER_FUZZ} each method runs once per input stored in
 * {@code src/test/resources/dev/lacuna/item/KeyEncodingFuzzTestInputs/<method name>/} (hand-made seeds,
 * and findings of fuzzing sessions renamed {@code finding-*}). To fuzz:
 * <pre>JAZZER_FUZZ=1 mvn -pl engine-core test -Dtest='KeyEncodingFuzzTest#decodeKey'</pre>
 */
class KeyEncodingFuzzTest {
    private static final boolean FUZZING = !System.getenv().getOrDefault("JAZZER_FUZZ", "").isEmpty();
    private static final Duration REGRESSION_TIMEOUT = Duration.ofSeconds(30);
    private static final String FILE = "fuzz.sst";
    private static final long BASE = 1L << 40;
    private static final Type[] KEY_TYPES = {Type.S, Type.N, Type.B};

    /**
     * The input's first byte picks the key schema (bits 0-1: partition key type S, N, B; bits 2-3: sort
     * key type S, N, B or none); the rest is an encoded key. It is also decoded as a single component and
     * its partition prefix length is taken.
     */
    @FuzzTest(maxDuration = "2m")
    void decodeKey(byte[] input) throws Throwable {
        withHangGuard(() -> {
            if (input.length == 0) {
                return;
            }
            Type pkType = KEY_TYPES[(input[0] & 3) % 3];
            int sk = (input[0] >>> 2) & 3;
            Type skType = sk == 3 ? null : KEY_TYPES[sk];
            byte[] key = Arrays.copyOfRange(input, 1, input.length);
            try {
                KeyEncoding.DecodedKey decoded = KeyEncoding.decodeKey(key, 0, key.length, pkType, skType, FILE, BASE);
                assertThat(KeyEncoding.encodeKey(decoded.tableId(), decoded.partitionKey(), decoded.sortKey()))
                        .isEqualTo(key);
                assertThat(KeyEncoding.partitionPrefixLength(key))
                        .isEqualTo(KeyEncoding.encodePartitionPrefix(decoded.tableId(), decoded.partitionKey()).length);
            } catch (CorruptionException e) {
                checkReported(e, key.length);
            }
            try {
                int length = KeyEncoding.partitionPrefixLength(key);
                assertThat(length).isBetween(KeyEncoding.TABLE_ID_BYTES + 1, key.length);
            } catch (CorruptionException e) {
                assertThat(e.file()).isEqualTo(KeyEncoding.UNKNOWN_FILE);
            }
            try {
                AttributeValue v = KeyEncoding.decodeValue(key);
                assertThat(KeyEncoding.encodeValue(v)).isEqualTo(key);
            } catch (CorruptionException e) {
                assertThat(e.offset()).isBetween(0L, (long) key.length);
            }
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
