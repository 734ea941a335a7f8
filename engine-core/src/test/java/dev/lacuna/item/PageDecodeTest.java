package dev.lacuna.item;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import dev.lacuna.storage.CorruptionException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A query page's items (decoded through one NameCache, values left encoded where the page's shape allows) against
 * plain decoding of the same bytes, in every observable way, on valid and damaged input, read first in every way and
 * by threads racing. From the adversarial review of the lazily made values; {@code -Ditem.scale=N} runs N times the
 * pages.
 */
class PageDecodeTest {
    private static final int[] LENGTHS = {0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 128, 129, 255, 256, 300, 1000,
            16383, 16384};

    private static int deferredCount(Item item) {
        try {
            Object m = item.attributes();
            java.lang.reflect.Field f = m.getClass().getDeclaredField("deferred");
            f.setAccessible(true);
            int[] d = (int[]) f.get(m);
            java.lang.reflect.Field v = m.getClass().getDeclaredField("values");
            v.setAccessible(true);
            Object[] values = (Object[]) v.get(m);
            if (d == null) {
                return 0;
            }
            int n = 0;
            for (int i = 0; i < item.size(); i++) {
                n += values[i] == null ? 1 : 0;
            }
            return n;
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void pagesOfOneShapeDecodeAsPlainDecoding() {
        int deferredItems = 0;
        int totalItems = 0;
        Random random = new Random(11);
        for (int page = 0; page < Seeds.cases(60); page++) {
            List<byte[]> encoded = page(random);
            NameCache names = new NameCache();
            List<Item> decoded = new ArrayList<>();
            List<Long> sizes = new ArrayList<>();
            for (byte[] b : encoded) {
                Item it = ItemCodec.decodePageItem(b, names);
                decoded.add(it);
                sizes.add(names.lastItemSize());
                deferredItems += deferredCount(it) > 0 ? 1 : 0;
                totalItems++;
            }
            for (int i = 0; i < encoded.size(); i++) {
                compare(decoded.get(i), encoded.get(i), random);
                assertThat(sizes.get(i)).isEqualTo(ItemCodec.decodeSized(encoded.get(i)).size());
            }
        }
        System.out.println("REVIEW deferred items " + deferredItems + " of " + totalItems);
        assertThat(deferredItems).isGreaterThan(totalItems / 4);
    }

    @Test
    void damagedItemsOnAPageFailAtDecodeAsPlainDecodingDoes() {
        Random random = new Random(12);
        int threw = 0;
        int passed = 0;
        for (int page = 0; page < Seeds.cases(6); page++) {
            List<byte[]> encoded = page(random);
            for (int j = 2; j < encoded.size(); j++) {
                byte[] good = encoded.get(j);
                int mutations = Math.min(good.length * 2, 50);
                for (int m = 0; m < mutations; m++) {
                    byte[] bad = mutate(good, random);
                    NameCache names = new NameCache();
                    ItemCodec.decodePageItem(encoded.get(j - 2), names);
                    ItemCodec.decodePageItem(encoded.get(j - 1), names);
                    Object plain = outcome(() -> ItemCodec.decode(bad));
                    Object cached = outcome(() -> ItemCodec.decodePageItem(bad, names));
                    if (plain instanceof Item p) {
                        assertThat(cached).as("page decode of %s", Arrays.toString(bad)).isInstanceOf(Item.class);
                        Item c = (Item) cached;
                        assertThat(c.toString()).isEqualTo(p.toString());
                        assertThat(c).isEqualTo(p);
                        passed++;
                    } else {
                        assertThat(cached).as("page decode of %s", Arrays.toString(bad)).isInstanceOf(Throwable.class);
                        Throwable pe = (Throwable) plain;
                        Throwable ce = (Throwable) cached;
                        assertThat(ce).isInstanceOf(CorruptionException.class);
                        assertThat(ce.getClass()).isEqualTo(pe.getClass());
                        assertThat(ce.getMessage()).isEqualTo(pe.getMessage());
                        threw++;
                    }
                    // the reused decoder goes on to the next item as new
                    if (j + 1 < encoded.size()) {
                        Item next = ItemCodec.decodePageItem(encoded.get(j + 1), names);
                        compare(next, encoded.get(j + 1), random);
                        assertThat(names.lastItemSize()).isEqualTo(ItemCodec.decodeSized(encoded.get(j + 1)).size());
                    }
                }
            }
        }
        assertThat(threw).isGreaterThan(300);
        assertThat(passed).isGreaterThan(30);
    }

    @Test
    void everyByteValueAtEveryPositionAndEveryTruncationAsPlainDecoding() {
        String long130 = "x".repeat(130);
        Item a = Item.builder().s("pk", "T#1").n("neg", new BigDecimal("-1.23456789012345678901234567890123457E-100"))
                .n("max", new BigDecimal("9.9999999999999999999999999999999999999E+125")).s("s", long130 + "a")
                .n("min", new BigDecimal("-1E-130")).s("e", "").s("one", "q").n("z", 0).build();
        Item b = Item.builder().s("pk", "T#2").n("neg", new BigDecimal("-7")).n("max", new BigDecimal("1E+125"))
                .s("s", long130 + "b").n("min", new BigDecimal("1E-130")).s("e", "e").s("one", "r").n("z", 5).build();
        Item c = Item.builder().s("pk", "T#3").n("neg", new BigDecimal("-99999999999999999999999999999999999999"))
                .n("max", new BigDecimal("-9.9999999999999999999999999999999999999E+125")).s("s", long130 + "c")
                .n("min", new BigDecimal("12.5")).s("e", "").s("one", "s").n("z", 1).build();
        byte[] good = ItemCodec.encode(c);
        int compared = 0;
        for (int at = 0; at <= good.length; at++) {
            for (int v = -1; v < 256; v++) {
                byte[] bad;
                if (at == good.length) {
                    if (v >= 0) {
                        break;
                    }
                    bad = good;
                } else if (v < 0) {
                    bad = Arrays.copyOf(good, at);
                } else {
                    bad = good.clone();
                    bad[at] = (byte) v;
                }
                NameCache names = new NameCache();
                ItemCodec.decodePageItem(ItemCodec.encode(a), names);
                ItemCodec.decodePageItem(ItemCodec.encode(b), names);
                Object plain = outcome(() -> ItemCodec.decode(bad));
                Object cached = outcome(() -> ItemCodec.decodePageItem(bad, names));
                if (plain instanceof Item p) {
                    assertThat(cached).as("at %d value %d", at, v).isInstanceOf(Item.class);
                    assertThat(cached.toString()).isEqualTo(p.toString());
                    assertThat(cached).isEqualTo(p);
                } else {
                    assertThat(cached).as("at %d value %d", at, v).isInstanceOf(CorruptionException.class);
                    assertThat(((Throwable) cached).getMessage()).isEqualTo(((Throwable) plain).getMessage());
                }
                compared++;
            }
        }
        assertThat(compared).isGreaterThan(good.length * 256);
    }

    @Test
    void aDuplicateNameAfterValuesLeftEncodedIsRefusedAtDecode() {
        NameCache names = new NameCache();
        Item a = Item.builder().s("a", "abcdefgh1").n("b", 12345).s("c", "xyzxyzxyz1").build();
        Item b = Item.builder().s("a", "abcdefgh2").n("b", 123456).s("c", "xyzxyzxyz2").build();
        Item c = Item.builder().s("a", "abcdefgh3").n("b", 1234567).s("c", "xyzxyzxyz3").build();
        ItemCodec.decodePageItem(ItemCodec.encode(a), names);
        ItemCodec.decodePageItem(ItemCodec.encode(b), names);
        byte[] bytes = ItemCodec.encode(c);
        // rename "c" to "a" (same length): a duplicate after two values left encoded
        int at = lastIndexOf(bytes, "c".getBytes(StandardCharsets.US_ASCII));
        bytes[at] = 'a';
        Throwable plain = outcome2(bytes, null);
        Throwable cached = outcome2(bytes, names);
        assertThat(plain).isInstanceOf(CorruptionException.class);
        assertThat(cached).isInstanceOf(CorruptionException.class).hasMessage(plain.getMessage());
        // and "b" (a number left encoded) renamed to "a"
        bytes = ItemCodec.encode(c);
        at = lastIndexOf(bytes, "b".getBytes(StandardCharsets.US_ASCII));
        bytes[at] = 'a';
        names = new NameCache();
        ItemCodec.decodePageItem(ItemCodec.encode(a), names);
        ItemCodec.decodePageItem(ItemCodec.encode(b), names);
        plain = outcome2(bytes, null);
        cached = outcome2(bytes, names);
        assertThat(plain).isInstanceOf(CorruptionException.class);
        assertThat(cached).isInstanceOf(CorruptionException.class).hasMessage(plain.getMessage());
    }

    @Test
    void threadsRacingFirstReadsOfAPagesItemsEachSeeThePlainValues() throws Exception {
        Random random = new Random(13);
        int threads = 4;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < Seeds.cases(50); round++) {
                List<byte[]> encoded = page(random);
                NameCache names = new NameCache();
                List<Item> decoded = new ArrayList<>();
                List<Item> plain = new ArrayList<>();
                for (byte[] b : encoded) {
                    decoded.add(ItemCodec.decodePageItem(b, names));
                    plain.add(ItemCodec.decode(b));
                }
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
                List<java.util.concurrent.Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int seed = t;
                    done.add(pool.submit(() -> {
                        start.await(30, java.util.concurrent.TimeUnit.SECONDS);
                        for (int i = 0; i < decoded.size(); i++) {
                            Item d = decoded.get(i);
                            Item p = plain.get(i);
                            List<String> order = new ArrayList<>(p.attributes().keySet());
                            java.util.Collections.shuffle(order, new Random(seed * 1000L + i));
                            for (String n : order) {
                                AttributeValue v = d.get(n);
                                if (!v.equals(p.get(n))) {
                                    throw new AssertionError(n + ": " + v + " != " + p.get(n));
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (java.util.concurrent.Future<?> f : done) {
                    f.get(60, java.util.concurrent.TimeUnit.SECONDS);
                }
                for (int i = 0; i < decoded.size(); i++) {
                    assertThat(decoded.get(i)).isEqualTo(plain.get(i));
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aFrozenMapRefusesEveryChangeThroughEveryView() {
        NameCache names = new NameCache();
        Item a = Item.builder().s("a", "abcdefgh1").n("b", 12345).build();
        Item b = Item.builder().s("a", "abcdefgh2").n("b", 123456).build();
        Item c = Item.builder().s("a", "abcdefgh3").n("b", 1234567).build();
        ItemCodec.decodePageItem(ItemCodec.encode(a), names);
        ItemCodec.decodePageItem(ItemCodec.encode(b), names);
        Item item = ItemCodec.decodePageItem(ItemCodec.encode(c), names);
        Map<String, AttributeValue> m = item.attributes();
        assertThatThrownBy(() -> m.put("a", AttributeValue.s("x"))).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.keySet().remove("a")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.values().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.entrySet().iterator().next().setValue(AttributeValue.s("x")))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> {
            Iterator<String> it = m.keySet().iterator();
            it.next();
            it.remove();
        }).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.entrySet().removeIf(e -> true)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.keySet().retainAll(Set.of())).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.replaceAll((k, v) -> v)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.remove("zz")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(item).isEqualTo(c);
        assertThat(ItemCodec.encode(item)).isEqualTo(ItemCodec.encode(c));
    }

    private static int lastIndexOf(byte[] b, byte[] what) {
        for (int i = b.length - what.length; i >= 0; i--) {
            if (Arrays.equals(b, i, i + what.length, what, 0, what.length) && b[i - 1] == what.length) {
                return i;
            }
        }
        throw new AssertionError();
    }

    private static Throwable outcome2(byte[] bytes, NameCache names) {
        try {
            Item item = names == null ? ItemCodec.decode(bytes) : ItemCodec.decodePageItem(bytes, names);
            item.toString();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    private static Object outcome(java.util.function.Supplier<Item> decode) {
        Item item;
        try {
            item = decode.get();
        } catch (RuntimeException e) {
            return e;
        }
        // everything read now must not throw: it was checked at decode
        item.toString();
        item.hashCode();
        for (String n : item.attributes().keySet()) {
            item.get(n);
        }
        return item;
    }

    private static byte[] mutate(byte[] good, Random random) {
        switch (random.nextInt(4)) {
            case 0: {
                return Arrays.copyOf(good, random.nextInt(good.length));
            }
            case 1: {
                byte[] b = good.clone();
                int at = random.nextInt(b.length);
                b[at] ^= (byte) (1 << random.nextInt(8));
                return b;
            }
            case 2: {
                byte[] b = good.clone();
                int at = random.nextInt(b.length);
                int[] special = {0, 0xFF, 0x80, 0x7F, 0x01, 0x02, 0x03, 0x04, 0x05, 0xC3, 0xE2, 0xF0, 0xED};
                b[at] = (byte) (random.nextBoolean() ? special[random.nextInt(special.length)] : random.nextInt(256));
                return b;
            }
            default: {
                byte[] b = Arrays.copyOf(good, good.length + 1 + random.nextInt(3));
                for (int i = good.length; i < b.length; i++) {
                    b[i] = (byte) random.nextInt(256);
                }
                return b;
            }
        }
    }

    private static void compare(Item page, byte[] bytes, Random random) {
        Item plain = ItemCodec.decode(bytes);
        List<String> order = new ArrayList<>(plain.attributes().keySet());
        // first reads by different routes
        switch (random.nextInt(6)) {
            case 0 -> assertThat(page.toString()).isEqualTo(plain.toString());
            case 1 -> assertThat(page.hashCode()).isEqualTo(plain.hashCode());
            case 2 -> assertThat(plain.equals(page)).isTrue();
            case 3 -> assertThat(page.equals(plain)).isTrue();
            case 4 -> {
                List<String> shuffled = new ArrayList<>(order);
                java.util.Collections.shuffle(shuffled, random);
                for (String n : shuffled) {
                    assertThat(page.get(n)).isEqualTo(plain.get(n));
                }
            }
            default -> assertThat(new LinkedHashMap<>(page.attributes())).isEqualTo(plain.attributes());
        }
        assertThat(page).isEqualTo(plain);
        assertThat(plain).isEqualTo(page);
        assertThat(page.hashCode()).isEqualTo(plain.hashCode());
        assertThat(page.toString()).isEqualTo(plain.toString());
        assertThat(new ArrayList<>(page.attributes().keySet())).isEqualTo(order);
        assertThat(page.size()).isEqualTo(plain.size());
        for (String n : order) {
            AttributeValue p = page.get(n);
            AttributeValue q = plain.get(n);
            assertThat(p).isEqualTo(q);
            assertThat(p.type()).isEqualTo(q.type());
            if (q instanceof AttributeValue.N nq) {
                BigDecimal pv = ((AttributeValue.N) p).value();
                assertThat(pv.scale()).isEqualTo(nq.value().scale());
                assertThat(pv.precision()).isEqualTo(nq.value().precision());
                assertThat(pv.toString()).isEqualTo(nq.value().toString());
                assertThat(page.getNumber(n)).isEqualTo(plain.getNumber(n));
            }
            if (q instanceof AttributeValue.S sq) {
                assertThat(page.getString(n)).isEqualTo(sq.value());
                assertThat(page.getString(n).length()).isEqualTo(sq.value().length());
            }
            assertThat(page.has(n)).isTrue();
        }
        assertThat(page.get("no such name")).isNull();
        assertThat(ItemCodec.encode(page)).isEqualTo(bytes);
    }

    /** 2 to 40 items, mostly of one shape; values of each position mostly of one type. */
    private static List<byte[]> page(Random random) {
        int width = 1 + (random.nextInt(4) == 0 ? random.nextInt(45) : random.nextInt(8));
        List<String> names = new ArrayList<>();
        for (int i = 0; i < width; i++) {
            names.add(random.nextInt(5) == 0 ? "n\u00e9" + i : "attr" + i);
        }
        int[] kinds = new int[width];
        for (int i = 0; i < width; i++) {
            kinds[i] = random.nextInt(12);
        }
        int count = 2 + random.nextInt(40);
        List<byte[]> out = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            Item.Builder b = Item.builder();
            List<String> these = new ArrayList<>(names);
            int change = random.nextInt(8);
            if (change == 0 && these.size() > 1) {
                these.remove(random.nextInt(these.size()));
            } else if (change == 1) {
                these.add(random.nextInt(these.size() + 1), "extra" + random.nextInt(3));
            } else if (change == 2) {
                these.set(random.nextInt(these.size()), "other" + random.nextInt(3));
            }
            for (int i = 0; i < these.size(); i++) {
                int kind = random.nextInt(10) == 0 ? random.nextInt(12) : kinds[Math.min(i, width - 1)];
                b.put(these.get(i), value(kind, random, 0));
            }
            out.add(ItemCodec.encode(b.build()));
        }
        return out;
    }

    private static AttributeValue value(int kind, Random random, int depth) {
        switch (depth > 2 ? kind % 3 : kind) {
            case 0:
            case 1:
            case 2:
            case 3:
                return new AttributeValue.S(string(random));
            case 4:
            case 5:
            case 6:
                return new AttributeValue.N(number(random));
            case 7:
                return random.nextBoolean() ? AttributeValue.bool(random.nextBoolean()) : AttributeValue.nul();
            case 8: {
                byte[] bytes = new byte[random.nextInt(20)];
                random.nextBytes(bytes);
                return AttributeValue.b(bytes);
            }
            case 9: {
                List<AttributeValue> l = new ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    l.add(value(random.nextInt(12), random, depth + 1));
                }
                return AttributeValue.l(l);
            }
            case 10: {
                Map<String, AttributeValue> m = new LinkedHashMap<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    m.put("attr" + random.nextInt(6), value(random.nextInt(12), random, depth + 1));
                }
                return AttributeValue.m(m);
            }
            default: {
                if (random.nextBoolean()) {
                    Set<String> s = new LinkedHashSet<>();
                    for (int i = 1 + random.nextInt(3); i > 0; i--) {
                        s.add(string(random));
                    }
                    return new AttributeValue.SS(s);
                }
                Set<BigDecimal> s = new LinkedHashSet<>();
                for (int i = 1 + random.nextInt(3); i > 0; i--) {
                    s.add(number(random));
                }
                return new AttributeValue.NS(s);
            }
        }
    }

    private static String string(Random random) {
        int r = random.nextInt(10);
        if (r == 0) {
            return "CONST";
        }
        int n = r < 4 ? LENGTHS[random.nextInt(LENGTHS.length)] : random.nextInt(40);
        StringBuilder sb = new StringBuilder();
        boolean nonAscii = random.nextInt(6) == 0;
        for (int i = 0; i < n; i++) {
            if (nonAscii && random.nextInt(8) == 0) {
                sb.append(random.nextBoolean() ? '\u00e9' : "\uD83D\uDE00");
            } else {
                sb.append((char) (random.nextInt(6) == 0 ? random.nextInt(128) : 'a' + random.nextInt(26)));
            }
        }
        return sb.toString();
    }

    private static BigDecimal number(Random random) {
        switch (random.nextInt(9)) {
            case 0:
                return BigDecimal.ZERO;
            case 1:
                return new BigDecimal("9.9999999999999999999999999999999999999E+125").multiply(
                        BigDecimal.valueOf(random.nextBoolean() ? 1 : -1));
            case 2:
                return new BigDecimal("1E-130").multiply(BigDecimal.valueOf(random.nextBoolean() ? 1 : -1));
            case 3: {
                StringBuilder sb = new StringBuilder();
                sb.append(1 + random.nextInt(9));
                for (int i = random.nextInt(38); i > 0; i--) {
                    sb.append(random.nextInt(10));
                }
                BigDecimal v = new BigDecimal(new BigInteger(sb.toString()), random.nextInt(60) - 30);
                return random.nextBoolean() ? v : v.negate();
            }
            case 4:
                return BigDecimal.valueOf(random.nextLong());
            case 5:
                return BigDecimal.valueOf(random.nextInt(2000) - 1000, random.nextInt(6));
            case 6:
                return new BigDecimal("100").multiply(BigDecimal.valueOf(random.nextInt(1000)));
            default:
                return BigDecimal.valueOf(1_700_000_000_000L + random.nextInt(1_000_000));
        }
    }
}
