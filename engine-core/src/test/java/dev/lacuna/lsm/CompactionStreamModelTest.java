package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Brute force against a model: random small histories of puts, deletions and single deletions (the latter
 * only where the single-delete contract allows: at most one put since the key was last absent), interleaved
 * with snapshots taken and released, runs frozen ("flushes") and random contiguous ranges of runs compacted
 * through {@link CompactionStream}, with "below" the truth about older runs or, at random, a conservative
 * yes. After every compaction, what a reader sees at every live snapshot and at latest, reading the newest
 * entry at or below its sequence across all runs, must be what the full uncompacted history says.
 */
class CompactionStreamModelTest {
    private static final String[] KEYS = {"a", "b"};
    private static final long LATEST = InternalKey.MAX_SEQUENCE;

    private record Entry(String key, long seq, int kind) {
    }

    @Test
    void shouldAgreeWithTheModelAtEverySnapshotAfterEveryCompaction() {
        long seed0 = Long.getLong("cs.model.seed", 1L);
        int trials = Integer.getInteger("cs.model.trials", 200_000);
        int compared = 0;
        for (int t = 0; t < trials; t++) {
            long seed = seed0 * 1_000_003L + t;
            String failure = trial(seed);
            if (failure != null) {
                throw new AssertionError("seed " + seed + ": " + failure);
            }
            compared++;
        }
        assertThat(compared).isEqualTo(trials);
        System.out.println("CompactionStreamModelTest: " + trials + " histories agreed");
    }

    /** One history; null if every read agreed, else what went wrong. */
    static String trial(long seed) {
        Random random = new Random(seed);
        List<Entry> history = new ArrayList<>();
        List<List<Entry>> runs = new ArrayList<>(); // index 0 the oldest
        runs.add(new ArrayList<>());
        TreeSet<Long> snapshots = new TreeSet<>();
        Map<String, Integer> putsSinceAbsent = new HashMap<>();
        StringBuilder log = new StringBuilder();
        long seq = 0;
        int steps = 10 + random.nextInt(40);
        for (int step = 0; step < steps; step++) {
            int dice = random.nextInt(100);
            if (dice < 50) {
                String k = KEYS[random.nextInt(KEYS.length)];
                int kind;
                int r = random.nextInt(10);
                if (r < 5) {
                    kind = InternalKey.KIND_PUT;
                } else if (r < 7) {
                    kind = InternalKey.KIND_DELETE;
                } else {
                    kind = putsSinceAbsent.getOrDefault(k, 0) <= 1 ? InternalKey.KIND_SINGLE_DELETE : InternalKey.KIND_DELETE;
                }
                if (kind == InternalKey.KIND_PUT) {
                    putsSinceAbsent.merge(k, 1, Integer::sum);
                } else {
                    putsSinceAbsent.put(k, 0);
                }
                Entry e = new Entry(k, ++seq, kind);
                history.add(e);
                runs.get(runs.size() - 1).add(e);
                log.append(render(e)).append(' ');
            } else if (dice < 60) {
                runs.add(new ArrayList<>());
                log.append("| ");
            } else if (dice < 70) {
                snapshots.add(seq);
                log.append("snap@").append(seq).append(' ');
            } else if (dice < 75) {
                if (!snapshots.isEmpty()) {
                    List<Long> list = new ArrayList<>(snapshots);
                    long s = list.get(random.nextInt(list.size()));
                    snapshots.remove(s);
                    log.append("release@").append(s).append(' ');
                }
            } else {
                int i = random.nextInt(runs.size());
                int j = i + random.nextInt(runs.size() - i);
                boolean conservative = random.nextBoolean();
                List<Entry> below = new ArrayList<>();
                for (int x = 0; x < i; x++) {
                    below.addAll(runs.get(x));
                }
                List<Entry> input = new ArrayList<>();
                for (int x = i; x <= j; x++) {
                    input.addAll(runs.get(x));
                }
                List<Entry> output = compact(input, snapshots, below, conservative);
                log.append("compact[").append(i).append("..").append(j).append(conservative ? ",below=yes" : "")
                        .append(" snaps=").append(snapshots).append("](").append(renderAll(input)).append(" -> ")
                        .append(renderAll(output)).append(") ");
                for (int x = j; x >= i; x--) {
                    runs.remove(x);
                }
                runs.add(i, output);
                if (runs.isEmpty()) {
                    runs.add(new ArrayList<>());
                }
                List<Long> readAt = new ArrayList<>(snapshots);
                readAt.add(LATEST);
                for (String k : KEYS) {
                    for (long s : readAt) {
                        Entry expected = newest(history, k, s);
                        Entry actual = newestAcross(runs, k, s);
                        boolean expectedPresent = expected != null && expected.kind() == InternalKey.KIND_PUT;
                        boolean actualPresent = actual != null && actual.kind() == InternalKey.KIND_PUT;
                        if (expectedPresent != actualPresent || (expectedPresent && expected.seq() != actual.seq())) {
                            return "read of " + k + " at " + (s == LATEST ? "latest" : "snapshot " + s) + ": expected "
                                    + (expectedPresent ? render(expected) : "absent") + ", got "
                                    + (actualPresent ? render(actual) : "absent") + "; history: " + log;
                        }
                    }
                }
            }
        }
        return null;
    }

    private static List<Entry> compact(List<Entry> input, TreeSet<Long> snapshots, List<Entry> below, boolean conservative) {
        Memtable table = new Memtable();
        for (Entry e : input) {
            table.add(e.key().getBytes(StandardCharsets.UTF_8), e.seq(), e.kind(), new byte[0]);
        }
        long[] snaps = snapshots.stream().mapToLong(Long::longValue).toArray();
        List<Entry> out = new ArrayList<>();
        try (InternalIterator it = table.iterator()) {
            it.seekToFirst();
            CompactionStream stream = new CompactionStream(it, snaps, ik -> {
                if (conservative) {
                    return true;
                }
                String k = new String(InternalKey.userKey(ik), StandardCharsets.UTF_8);
                return below.stream().anyMatch(e -> e.key().equals(k));
            });
            while (stream.next()) {
                byte[] k = stream.key();
                out.add(new Entry(new String(InternalKey.userKey(k), StandardCharsets.UTF_8), InternalKey.sequence(k),
                        InternalKey.kind(k)));
            }
        }
        return out;
    }

    private static Entry newest(List<Entry> entries, String key, long snapshot) {
        Entry best = null;
        for (Entry e : entries) {
            if (e.key().equals(key) && e.seq() <= snapshot && (best == null || e.seq() > best.seq())) {
                best = e;
            }
        }
        return best;
    }

    /** As the read path: the newest run holding a version at or below the snapshot answers. */
    private static Entry newestAcross(List<List<Entry>> runs, String key, long snapshot) {
        for (int x = runs.size() - 1; x >= 0; x--) {
            Entry e = newest(runs.get(x), key, snapshot);
            if (e != null) {
                return e;
            }
        }
        return null;
    }

    private static String render(Entry e) {
        String kind = switch (e.kind()) {
            case InternalKey.KIND_PUT -> "P";
            case InternalKey.KIND_DELETE -> "D";
            default -> "S";
        };
        return e.key() + "@" + e.seq() + "." + kind;
    }

    private static String renderAll(List<Entry> entries) {
        List<String> parts = new ArrayList<>();
        entries.stream().sorted((x, y) -> x.key().equals(y.key()) ? Long.compare(y.seq(), x.seq()) : x.key().compareTo(y.key()))
                .forEach(e -> parts.add(render(e)));
        return String.join(" ", parts);
    }
}
