package dev.lacuna.item;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.Item;
import dev.lacuna.AttributeValue.Type;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Damages small encoded items and keys in every single-bit way, every single-byte way and every
 * truncation. The codec has no checksum (the SSTable and WAL around it have), so damage need not be
 * detected; what is checked is that the decoders answer either with a {@link CorruptionException}
 * naming the given file and an offset inside the input, or with a valid value that re-encodes to exactly
 * the damaged bytes (the encodings are canonical). Any other exception fails the test.
 */
class ItemCodecBitFlipTest {
    private static final String FILE = "000123.sst";
    private static final long BASE = 4096;

    /** One attribute of every type, a nested list and map, multi-byte strings and 0x00 bytes. */
    static Item smallItem() {
        return Item.builder()
                .s("pk", "TICKET#1")
                .n("n", "-123.45")
                .b("b", new byte[] {0, (byte) 0xFF, 1})
                .bool("t", true)
                .nul("z")
                .put("l", AttributeValue.l(AttributeValue.n(0), AttributeValue.s("é€😀"), AttributeValue.l()))
                .put("m", AttributeValue.m(Map.of("k", AttributeValue.bool(false))))
                .put("ss", AttributeValue.ss("a", ""))
                .put("ns", AttributeValue.ns("1E-130", "9.9E+125"))
                .put("bs", AttributeValue.bs(new byte[0], new byte[] {7}))
                .build();
    }

    @Test
    void shouldDetectOrDecodeCanonicallyEverySingleBitFlipByteValueAndTruncation() {
        byte[] original = ItemCodec.encode(smallItem());
        assertThat(ItemCodec.decode(original)).isEqualTo(smallItem());
        Tally flips = new Tally();
        for (int bit = 0; bit < original.length * 8; bit++) {
            byte[] damaged = original.clone();
            damaged[bit / 8] ^= (byte) (1 << (bit % 8));
            flips.count(checkItem(damaged));
        }
        Tally bytes = new Tally();
        for (int i = 0; i < original.length; i++) {
            for (int v = 0; v < 256; v++) {
                if (v != (original[i] & 0xFF)) {
                    byte[] damaged = original.clone();
                    damaged[i] = (byte) v;
                    bytes.count(checkItem(damaged));
                }
            }
        }
        for (int length = 0; length < original.length; length++) {
            assertThat(checkItem(Arrays.copyOf(original, length))).as("truncated to %d bytes", length).isFalse();
        }
        System.out.printf("item codec: %d bytes; %d bit flips (%d detected, %d decoded to another valid item);"
                        + " %d byte values (%d detected, %d decoded); %d truncations, all detected%n",
                original.length, flips.total(), flips.detected, flips.decoded,
                bytes.total(), bytes.detected, bytes.decoded, original.length);
        assertThat(flips.total()).isEqualTo(original.length * 8);
        assertThat(flips.detected).isPositive();
    }

    @Test
    void shouldDetectOrDecodeCanonicallyEverySingleBitFlipOfKeys() {
        Object[][] keys = {
            {KeyEncoding.encodeKey(3, AttributeValue.s("TICKET#\u0000é😀"), AttributeValue.n("-123.45")), Type.S, Type.N},
            {KeyEncoding.encodeKey(70000, AttributeValue.b(new byte[] {0, (byte) 0xFF, 0, 1}), AttributeValue.s("x")),
                Type.B, Type.S},
            {KeyEncoding.encodeKey(0, AttributeValue.n("9.9999999999999999999999999999999999999E+125"), null), Type.N, null},
        };
        Tally flips = new Tally();
        for (Object[] k : keys) {
            byte[] original = (byte[]) k[0];
            for (int bit = 0; bit < original.length * 8; bit++) {
                byte[] damaged = original.clone();
                damaged[bit / 8] ^= (byte) (1 << (bit % 8));
                flips.count(checkKey(damaged, (Type) k[1], (Type) k[2]));
            }
            for (int length = 0; length < original.length; length++) {
                assertThat(checkKey(Arrays.copyOf(original, length), (Type) k[1], (Type) k[2])).isFalse();
            }
        }
        System.out.printf("key encoding: %d bit flips (%d detected, %d decoded to another valid key)%n",
                flips.total(), flips.detected, flips.decoded);
        assertThat(flips.detected).isPositive();
    }

    @Test
    void shouldDetectOrDecodeCanonicallyEverySingleBitFlipOfRandomItems() {
        int items = Seeds.cases(300);
        Seeds.check("bit flips of random items", values -> {
            Tally flips = new Tally();
            for (int i = 0; i < items; i++) {
                byte[] original = ItemCodec.encode(values.item(4, 2));
                for (int bit = 0; bit < original.length * 8; bit++) {
                    byte[] damaged = original.clone();
                    damaged[bit / 8] ^= (byte) (1 << (bit % 8));
                    flips.count(checkItem(damaged));
                }
            }
            System.out.printf("item codec, %d random items: %d bit flips (%d detected, %d decoded to another valid item)%n",
                    items, flips.total(), flips.detected, flips.decoded);
        });
    }

    /** Whether {@code damaged} decoded (to an item that re-encodes to it); false if it was refused properly. */
    private static boolean checkItem(byte[] damaged) {
        byte[] framed = new byte[damaged.length + 2];
        System.arraycopy(damaged, 0, framed, 1, damaged.length);
        Item item;
        try {
            item = ItemCodec.decode(framed, 1, damaged.length, FILE, BASE);
        } catch (CorruptionException e) {
            assertThat(e.file()).isEqualTo(FILE);
            assertThat(e.offset()).isBetween(BASE, BASE + damaged.length);
            return false;
        }
        assertThat(ItemCodec.encode(item)).as("re-encoding of an accepted damaged item").isEqualTo(damaged);
        return true;
    }

    private static boolean checkKey(byte[] damaged, Type pkType, Type skType) {
        KeyEncoding.DecodedKey key;
        try {
            key = KeyEncoding.decodeKey(damaged, 0, damaged.length, pkType, skType, FILE, BASE);
        } catch (CorruptionException e) {
            assertThat(e.file()).isEqualTo(FILE);
            assertThat(e.offset()).isBetween(BASE, BASE + damaged.length);
            return false;
        }
        assertThat(KeyEncoding.encodeKey(key.tableId(), key.partitionKey(), key.sortKey())).isEqualTo(damaged);
        return true;
    }

    private static final class Tally {
        int detected;
        int decoded;

        void count(boolean wasDecoded) {
            if (wasDecoded) {
                decoded++;
            } else {
                detected++;
            }
        }

        int total() {
            return detected + decoded;
        }
    }
}
