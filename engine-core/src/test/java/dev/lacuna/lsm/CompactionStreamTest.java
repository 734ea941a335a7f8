package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a flush or compaction keeps, case by case. An entry is written {@code key@seq.KIND} with kind
 * {@code P} put, {@code D} delete, {@code S} single delete; "below" names the keys that may have older
 * versions under the output level.
 */
class CompactionStreamTest {

    @Test
    void shouldKeepOnlyTheNewestVersionWithoutSnapshots() {
        assertThat(run("a@3.P a@2.P a@1.P b@4.P", none(), Set.of("a"))).isEqualTo("a@3.P b@4.P");
    }

    @Test
    void shouldKeepTheNewestVersionOfEveryStripe() {
        assertThat(run("a@5.P a@4.P a@2.P a@1.P", new long[] {2, 4}, Set.of())).isEqualTo("a@5.P a@4.P a@2.P");
    }

    @Test
    void shouldDropADeletionNoSnapshotNeedsWhenNothingIsBelow() {
        assertThat(run("a@3.D a@1.P b@2.P", none(), Set.of())).isEqualTo("b@2.P");
    }

    @Test
    void shouldKeepADeletionWhileOlderVersionsMayBeBelow() {
        assertThat(run("a@3.D a@1.P", none(), Set.of("a"))).isEqualTo("a@3.D");
    }

    @Test
    void shouldKeepADeletionASnapshotCannotSee() {
        assertThat(run("a@3.D a@1.P", new long[] {2}, Set.of())).isEqualTo("a@3.D a@1.P");
    }

    @Test
    void shouldAnnihilateASingleDeleteWithItsPutAtAnyLevel() {
        assertThat(run("a@4.S a@3.P b@5.P", none(), Set.of("a"))).isEqualTo("b@5.P");
    }

    @Test
    void shouldNotAnnihilateAcrossASnapshot() {
        assertThat(run("a@4.S a@3.P", new long[] {3}, Set.of())).isEqualTo("a@4.S a@3.P");
    }

    @Test
    void shouldLetTheDeletionUnderAnAnnihilatedPairStillHideOlderVersions() {
        // put, delete, put, single delete: after the pair goes, the delete must still hide a@1 below.
        assertThat(run("a@4.S a@3.P a@2.D", none(), Set.of("a"))).isEqualTo("a@2.D");
    }

    @Test
    void shouldKeepTheDeletionUnderAPutWhileOlderVersionsMayExist() {
        // a@3 hides a@2 from every reader, but if a@3 is later single-deleted, a@1 below must not return.
        assertThat(run("a@3.P a@2.D", none(), Set.of("a"))).isEqualTo("a@3.P a@2.D");
        assertThat(run("a@3.P a@2.D", none(), Set.of())).isEqualTo("a@3.P");
        assertThat(run("a@3.P a@2.D a@1.P", none(), Set.of())).isEqualTo("a@3.P a@2.D");
    }

    @Test
    void shouldDropASingleDeleteOfAnAlreadyDeletedKeyInFavourOfTheDeletion() {
        assertThat(run("a@3.S a@2.D", none(), Set.of("a"))).isEqualTo("a@2.D");
        assertThat(run("a@3.S a@2.D a@1.P", none(), Set.of())).isEqualTo("");
    }

    @Test
    void shouldDropAnUnmatchedSingleDeleteWhenNothingIsBelow() {
        assertThat(run("a@3.S", none(), Set.of())).isEqualTo("");
        assertThat(run("a@3.S", none(), Set.of("a"))).isEqualTo("a@3.S");
    }

    @Test
    void shouldKeepASingleDeleteUnderAPutAsADeletionOfEverythingOlder() {
        // put, delete, single delete of the absent key, put: the flush keeps the newest deletion under the put,
        // the single delete. It stands for "absent", so it must hide every older version, not annihilate one.
        assertThat(run("a@5.P a@4.S a@3.D", none(), Set.of("a"))).isEqualTo("a@5.P a@4.D");
    }

    @Test
    void shouldNotLetASingleDeleteUnderAnAnnihilatedPutUncoverOlderPuts() {
        // Found by the metamorphic test (a deleted key back after power loss): the files of one partition held
        // S@60 | P@53 S@50 | P@45 | P@43 S@42 P@37, where S@50 stood for a deletion that hid P@45 and all
        // below. The compaction annihilated S@60 with P@53, then S@50 with P@45, and P@43 was visible again.
        assertThat(run("a@60.S a@53.P a@50.S a@45.P a@43.P a@42.S a@37.P", none(), Set.of())).isEqualTo("");
        assertThat(run("a@60.S a@53.P a@50.S a@45.P a@43.P a@42.S a@37.P", none(), Set.of("a"))).isEqualTo("a@50.D");
    }

    private static long[] none() {
        return new long[0];
    }

    /** Runs the stream over {@code entries} (any order; sorted here) and renders what it keeps. */
    private static String run(String entries, long[] snapshots, Set<String> below) {
        Memtable input = new Memtable();
        for (String e : entries.split(" ")) {
            String[] parts = e.split("[@.]");
            int kind = switch (parts[2]) {
                case "P" -> InternalKey.KIND_PUT;
                case "D" -> InternalKey.KIND_DELETE;
                default -> InternalKey.KIND_SINGLE_DELETE;
            };
            input.add(parts[0].getBytes(StandardCharsets.UTF_8), Long.parseLong(parts[1]), kind, new byte[0]);
        }
        List<String> kept = new ArrayList<>();
        try (InternalIterator it = input.iterator()) {
            it.seekToFirst();
            Arrays.sort(snapshots);
            CompactionStream stream = new CompactionStream(it, snapshots,
                    ik -> below.contains(new String(InternalKey.userKey(ik), StandardCharsets.UTF_8)));
            while (stream.next()) {
                byte[] k = stream.key();
                String kind = switch (InternalKey.kind(k)) {
                    case InternalKey.KIND_PUT -> "P";
                    case InternalKey.KIND_DELETE -> "D";
                    default -> "S";
                };
                kept.add(new String(InternalKey.userKey(k), StandardCharsets.UTF_8) + "@" + InternalKey.sequence(k) + "." + kind);
            }
        }
        return String.join(" ", kept);
    }
}
