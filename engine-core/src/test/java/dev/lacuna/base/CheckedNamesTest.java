package dev.lacuna.base;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link CheckedNames}, the decoded item's map, behaves as the {@code LinkedHashMap} it replaced, below and
 * above the size where it starts keeping an index.
 */
class CheckedNamesTest {
    @Test
    void shouldActAsALinkedHashMapOfTheSameEntriesAtEverySize() {
        Random random = new Random(8);
        for (int n = 0; n <= 200; n++) {
            CheckedNames<Integer> names = new CheckedNames<>(random.nextBoolean() ? n : 1); // grown or presized
            LinkedHashMap<String, Integer> expected = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                // names of equal length and equal hash ("Aa" and "BB" hash alike) among them
                String name = random.nextInt(4) == 0 ? collidingName(random.nextInt(64))
                        : "attr" + random.nextInt(3 * n + 1);
                Integer value = random.nextInt();
                assertThat(names.put(name, value)).as("put %s at size %d", name, i).isEqualTo(expected.put(name, value));
            }
            assertThat(names).isEqualTo(expected);
            assertThat(expected).isEqualTo(names);
            assertThat(names.hashCode()).isEqualTo(expected.hashCode());
            assertThat(names.toString()).isEqualTo(expected.toString());
            assertThat(names.size()).isEqualTo(expected.size());
            assertThat(new ArrayList<>(names.keySet())).isEqualTo(new ArrayList<>(expected.keySet()));
            for (String key : expected.keySet()) {
                assertThat(names.get(key)).isEqualTo(expected.get(key));
                assertThat(names.containsKey(new String(key))).isTrue(); // by equality, not identity
            }
            for (String absent : List.of("absent", "attr-1", collidingName(65), "")) {
                assertThat(names.containsKey(absent)).isEqualTo(expected.containsKey(absent));
                assertThat(names.get(absent)).isEqualTo(expected.get(absent));
            }
            assertThat(names.get(17)).isNull();
            assertThat(names.containsKey(null)).isFalse();
        }
    }

    @Test
    void shouldReturnTheOldValueWhenANameIsPutAgainAndKeepItsPlace() {
        CheckedNames<String> names = new CheckedNames<>(2);
        assertThat(names.put("a", "1")).isNull();
        assertThat(names.put("b", "2")).isNull();
        assertThat(names.put("a", "3")).isEqualTo("1");
        assertThat(names).containsExactly(Map.entry("a", "3"), Map.entry("b", "2"));
    }

    @Test
    void shouldShareOneMapsNamesWithTheNextAndStillActAsALinkedHashMapWhenLeavingThemAnywhere() {
        Random random = new Random(16);
        for (int n = 1; n <= 40; n++) {
            CheckedNames<Integer> first = new CheckedNames<>(n);
            LinkedHashMap<String, Integer> firstExpected = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String name = i % 5 == 0 ? collidingName(i) : "attr" + i;
                first.put(name, i);
                firstExpected.put(name, i);
            }
            CheckedNames.Shape shape = first.shareNames();
            assertThat(shape.size()).isEqualTo(n);
            for (int leave = 0; leave <= n; leave++) {
                CheckedNames<Integer> next = new CheckedNames<>(shape);
                LinkedHashMap<String, Integer> expected = new LinkedHashMap<>();
                for (int i = 0; i < leave; i++) {
                    next.putNext(-i);
                    expected.put(shape.name(i), -i);
                }
                if (leave < n) {
                    next.leaveShape();
                    for (int i = leave; i < n; i++) {
                        String name = random.nextInt(3) == 0 ? "other" + i : shape.name(i);
                        assertThat(next.put(name, i)).isEqualTo(expected.put(name, i));
                    }
                    String again = shape.name(random.nextInt(n));
                    assertThat(next.put(again, 99)).isEqualTo(expected.put(again, 99));
                }
                assertThat(next).isEqualTo(expected);
                assertThat(next.hashCode()).isEqualTo(expected.hashCode());
                assertThat(new ArrayList<>(next.keySet())).isEqualTo(new ArrayList<>(expected.keySet()));
                for (String key : expected.keySet()) {
                    assertThat(next.get(key)).isEqualTo(expected.get(key));
                }
                assertThat(next.containsKey("absent")).isFalse();
            }
            // the first map gave its names away: a put to it copies them, and the maps sharing them see nothing
            CheckedNames<Integer> sharing = new CheckedNames<>(shape);
            for (int i = 0; i < n; i++) {
                sharing.putNext(i);
            }
            first.put("late", 7);
            firstExpected.put("late", 7);
            assertThat(first).isEqualTo(firstExpected);
            assertThat(sharing).hasSize(n).doesNotContainKey("late");
            assertThat(new ArrayList<>(sharing.keySet())).isEqualTo(new ArrayList<>(firstExpected.keySet()).subList(0, n));
        }
    }

    @Test
    void shouldMakeAValueLeftEncodedOnItsFirstReadOnlyAndActAsTheMapOfTheMadeValues() {
        CheckedNames<String> first = new CheckedNames<>(4);
        for (String name : List.of("a", "b", "c", "d")) {
            first.put(name, "first-" + name);
        }
        byte[] source = "xx4BBBB4DDDD2BB".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        List<String> made = new ArrayList<>();
        CheckedNames.Deferred<String> decoder = (b, offset) -> {
            String v = new String(b, offset + 1, b[offset] - '0', java.nio.charset.StandardCharsets.US_ASCII);
            made.add(v);
            return v;
        };
        CheckedNames<String> next = new CheckedNames<>(first.shareNames());
        next.putNext("A");
        next.putNextDeferred(decoder, source, 2);
        next.putNext("C");
        next.putNextDeferred(decoder, source, 7);
        assertThat(made).isEmpty(); // nothing made until read
        assertThat(next.get("b")).isEqualTo("BBBB");
        assertThat(made).containsExactly("BBBB");
        assertThat(next.get("b")).isSameAs(next.get("b")); // kept, not made again
        assertThat(made).containsExactly("BBBB");
        LinkedHashMap<String, String> expected = new LinkedHashMap<>();
        expected.put("a", "A");
        expected.put("b", "BBBB");
        expected.put("c", "C");
        expected.put("d", "DDDD");
        assertThat(next).isEqualTo(expected); // iterating makes the rest
        assertThat(made).containsExactly("BBBB", "DDDD");
        assertThat(next.hashCode()).isEqualTo(expected.hashCode());
        assertThat(next.toString()).isEqualTo(expected.toString());
        // leaving the shape keeps what was left encoded
        CheckedNames<String> left = new CheckedNames<>(first.shareNames());
        left.putNextDeferred(decoder, source, 12);
        left.leaveShape();
        left.put("z", "Z");
        assertThat(left).containsExactly(Map.entry("a", "BB"), Map.entry("z", "Z"));
        // one source and one decoder per map
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> left.putNextDeferred(decoder, new byte[4], 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldGiveThreadsReadingAValueLeftEncodedAtOnceEqualValues() throws Exception {
        CheckedNames<Integer> first = new CheckedNames<>(64);
        for (int i = 0; i < 64; i++) {
            first.put("attr" + i, i);
        }
        CheckedNames.Shape shape = first.shareNames();
        byte[] source = new byte[64];
        for (int i = 0; i < 64; i++) {
            source[i] = (byte) i;
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 200; round++) {
                CheckedNames<Integer> map = new CheckedNames<>(shape);
                for (int i = 0; i < 64; i++) {
                    map.putNextDeferred((b, offset) -> (int) b[offset], source, i);
                }
                java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
                List<java.util.concurrent.Future<List<Integer>>> reads = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    reads.add(pool.submit(() -> {
                        go.await();
                        return new ArrayList<>(map.values());
                    }));
                }
                go.countDown();
                for (java.util.concurrent.Future<List<Integer>> read : reads) {
                    List<Integer> values = read.get(1, java.util.concurrent.TimeUnit.MINUTES);
                    for (int i = 0; i < 64; i++) {
                        assertThat(values.get(i)).isEqualTo(i);
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Names of twelve characters built of "Aa" and "BB", which hash alike: all of them share one hash. */
    private static String collidingName(int i) {
        StringBuilder sb = new StringBuilder();
        for (int bit = 0; bit < 6; bit++) {
            sb.append((i >> bit & 1) == 0 ? "Aa" : "BB");
        }
        return sb.toString();
    }
}
