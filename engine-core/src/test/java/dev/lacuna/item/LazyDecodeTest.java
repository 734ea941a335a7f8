package dev.lacuna.item;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import dev.lacuna.storage.CorruptionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A lazily decoded item ({@link ItemCodec#decodeLazy}, a query page's) is the eagerly decoded one: equal both
 * ways, same hash, same DynamoDB JSON, same names in the same order, same size, same encoding, whichever
 * attribute is read first; it refuses exactly the damaged bytes the eager decoder refuses, when it is decoded
 * and not on a later read; and threads reading it for the first time at once all see the same values.
 */
class LazyDecodeTest {
    private static final int CASES = Seeds.cases(5_000);

    @Test
    void shouldBeTheEagerItemForRandomItemsOfEveryType() {
        Seeds.check("lazy decode equals eager decode", values -> {
            NameCache names = new NameCache();
            for (int i = 0; i < CASES; i++) {
                Item item = values.item(8, 4);
                byte[] bytes = ItemCodec.encode(item);
                ItemCodec.Sized eager = ItemCodec.decodeSized(bytes);
                // read one attribute first (or none): what was decoded before must not matter
                ItemCodec.Sized lazy = ItemCodec.decodeLazy(bytes.clone(), i % 2 == 0 ? names : null);
                List<String> order = List.copyOf(item.attributes().keySet());
                if (!order.isEmpty() && i % 3 != 0) {
                    String first = order.get(i % order.size());
                    assertThat(lazy.item().get(first)).isEqualTo(item.get(first));
                }
                assertSame(lazy.item(), eager.item());
                assertThat(lazy.size()).isEqualTo(eager.size()).isEqualTo(ItemSize.of(item));
                assertThat(ItemCodec.encode(lazy.item())).isEqualTo(bytes);
            }
        });
    }

    @Test
    void shouldBeTheEagerItemForOneAttributeOfEveryType() {
        Item item = ItemCodecBitFlipTest.smallItem().with("u", AttributeValue.s("é€😀 TICKET"))
                .with("big", AttributeValue.n("-9.9999999999999999999999999999999999999E+125"))
                .with("zero", AttributeValue.n(0)).with("f", AttributeValue.bool(false));
        byte[] bytes = ItemCodec.encode(item);
        for (String first : item.attributes().keySet()) {
            Item lazy = ItemCodec.decodeLazy(bytes, new NameCache()).item();
            assertThat(lazy.get(first)).isEqualTo(item.get(first));
            assertSame(lazy, item);
        }
        Item lazy = ItemCodec.decodeLazy(bytes, null).item();
        assertThat(lazy.getString("pk")).isEqualTo("TICKET#1");
        assertThat(lazy.getNumber("n")).isEqualByComparingTo("-123.45");
        assertThat(lazy.getBinary("b")).containsExactly(0, 0xFF, 1);
        assertThat(lazy.getBoolean("t")).isTrue();
        assertThat(lazy.isNull("z")).isTrue();
        assertThat(lazy.has("nope")).isFalse();
        assertThat(lazy.get("nope")).isNull();
        assertThat(lazy.without("pk").with("pk", AttributeValue.s("TICKET#1"))).isEqualTo(item);
        assertThat(Item.of(lazy.attributes())).isEqualTo(item);
        assertThat(Item.of(Map.copyOf(lazy.attributes()))).isEqualTo(item);
    }

    private static void assertSame(Item lazy, Item eager) {
        assertThat(lazy).isEqualTo(eager);
        assertThat(eager).isEqualTo(lazy);
        assertThat(lazy.attributes()).isEqualTo(eager.attributes());
        assertThat(eager.attributes()).isEqualTo(lazy.attributes());
        assertThat(lazy.hashCode()).isEqualTo(eager.hashCode());
        assertThat(lazy.toString()).isEqualTo(eager.toString());
        assertThat(lazy.size()).isEqualTo(eager.size());
        assertThat(List.copyOf(lazy.attributes().keySet())).isEqualTo(List.copyOf(eager.attributes().keySet()));
    }

    @Test
    void shouldRefuseWhenDecodedExactlyTheDamagedBytesTheEagerDecoderRefuses() {
        List<byte[]> originals = new ArrayList<>();
        originals.add(ItemCodec.encode(ItemCodecBitFlipTest.smallItem()));
        originals.add(ItemCodec.encode(Item.builder().s("pk", "TICKET#1").s("subject", "Printer é jams")
                .n("openedAt", 1_700_000_000L).n("price", "-0.125").bool("urgent", true).nul("assignee")
                .b("blob", new byte[] {1, 2}).build()));
        int[] tally = new int[2];
        for (byte[] original : originals) {
            for (int bit = 0; bit < original.length * 8; bit++) {
                byte[] damaged = original.clone();
                damaged[bit / 8] ^= (byte) (1 << (bit % 8));
                tally[compare(damaged) ? 1 : 0]++;
            }
            for (int i = 0; i < original.length; i++) {
                for (int v = 0; v < 256; v++) {
                    byte[] damaged = original.clone();
                    damaged[i] = (byte) v;
                    tally[compare(damaged) ? 1 : 0]++;
                }
            }
            for (int length = 0; length < original.length; length++) {
                assertThat(compare(java.util.Arrays.copyOf(original, length))).isFalse();
            }
        }
        assertThat(tally[0]).as("refused").isPositive();
        assertThat(tally[1]).as("accepted").isPositive();
    }

    @Test
    void shouldRefuseTheDamagedBytesOfRandomItemsAsTheEagerDecoderDoes() {
        Seeds.check("lazy decode refuses what eager decode refuses", values -> {
            for (int i = 0; i < Seeds.cases(200); i++) {
                byte[] original = ItemCodec.encode(values.item(4, 2));
                for (int bit = 0; bit < original.length * 8; bit++) {
                    byte[] damaged = original.clone();
                    damaged[bit / 8] ^= (byte) (1 << (bit % 8));
                    compare(damaged);
                }
            }
        });
    }

    /** Whether both decoders accepted {@code damaged} (to equal items); fails if only one did. */
    private static boolean compare(byte[] damaged) {
        Item eager;
        try {
            eager = ItemCodec.decode(damaged);
        } catch (CorruptionException e) {
            try {
                ItemCodec.decodeLazy(damaged, new NameCache());
            } catch (CorruptionException refused) {
                assertThat(refused.offset()).isEqualTo(e.offset());
                return false;
            }
            return fail("lazy decoding accepted bytes the eager decoder refuses: %s", e.getMessage());
        }
        ItemCodec.Sized lazy = ItemCodec.decodeLazy(damaged, new NameCache());
        assertSame(lazy.item(), eager);
        assertThat(lazy.size()).isEqualTo(ItemSize.of(eager));
        return true;
    }

    @Test
    void shouldGiveThreadsReadingAnItemForTheFirstTimeAtOnceTheSameValues() throws Exception {
        int threads = 4;
        Item item = Item.builder().s("pk", "TICKET#1").s("subject", "Printer on floor 3 jams").n("openedAt", 17)
                .b("blob", new byte[] {1, 2, 3}).bool("urgent", true).nul("assignee")
                .put("tags", AttributeValue.ss("a", "b")).build();
        byte[] bytes = ItemCodec.encode(item);
        List<String> names = List.copyOf(item.attributes().keySet());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < Seeds.cases(500); round++) {
                Item lazy = ItemCodec.decodeLazy(bytes, null).item();
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<List<AttributeValue>>> seen = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int offset = t;
                    seen.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        List<AttributeValue> got = new ArrayList<>();
                        for (int i = 0; i < names.size(); i++) {
                            String name = names.get((i + offset) % names.size());
                            got.add(lazy.get(name));
                        }
                        got.add(AttributeValue.s(lazy.toString()));
                        return got;
                    }));
                }
                for (int t = 0; t < threads; t++) {
                    List<AttributeValue> got = seen.get(t).get(30, TimeUnit.SECONDS);
                    for (int i = 0; i < names.size(); i++) {
                        assertThat(got.get(i)).isEqualTo(item.get(names.get((i + t) % names.size())));
                    }
                    assertThat(got.get(names.size())).isEqualTo(AttributeValue.s(item.toString()));
                }
                assertSame(lazy, item);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
