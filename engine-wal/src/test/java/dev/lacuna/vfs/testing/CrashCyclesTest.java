package dev.lacuna.vfs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shared cycle loop gives each cycle and lineage the seed a replay needs, and a failing one names that seed:
 * the crash suites' replay lines depend on it.
 */
class CrashCyclesTest {
    @Test
    void shouldRunEachCycleWithItsOwnSeed() {
        List<String> ran = new ArrayList<>();
        List<String> totals = new CrashCycles("t.crash", 3, 40L).run(ran, (seed, cycle, t) -> t.add(cycle + "@" + seed),
                t -> List.of()); // prints nothing: the suites print their own lines
        assertThat(totals).containsExactly("0@40", "1@41", "2@42");
    }

    @Test
    void shouldNameTheSeedThatReplaysAFailingCycle() {
        assertThatThrownBy(() -> new CrashCycles("t.crash", 5, 40L).run(new ArrayList<Long>(), (seed, cycle, t) -> {
            if (cycle == 2) {
                throw new IOException("lost");
            }
        }, t -> List.of())).isInstanceOf(AssertionError.class)
                .hasMessage("crash cycle failed; replay with -Dt.crash.seed=42 -Dt.crash.cycles=1")
                .hasCauseInstanceOf(IOException.class);
    }

    @Test
    void shouldSplitTheCyclesIntoLineagesEachWithItsSeed() throws Exception {
        List<String> ran = new CrashCycles("t.crash", 7, 10L).runLineages(3, new ArrayList<String>(),
                (seed, cycles, t) -> t.add(cycles + "@" + seed));
        assertThat(ran).containsExactly("3@10", "3@11", "1@12");
    }

    @Test
    void shouldNameTheLineageThatFailedUnlessItIsABreakageRun() {
        CrashCycles.Lineage<List<String>> failing = (seed, cycles, t) -> {
            if (seed == 11) {
                throw new AssertionError("gap");
            }
        };
        assertThatThrownBy(() -> new CrashCycles("t.crash", 7, 10L).runLineages(3, new ArrayList<>(), failing))
                .hasMessage("crash lineage failed; replay with -Dt.crash.seed=11 -Dt.crash.cycles=3");
        // A breakage run describes what caught the breakage from the failure itself: it must reach it unwrapped.
        assertThatThrownBy(() -> new CrashCycles(null, 7, 10L).runLineages(3, new ArrayList<>(), failing))
                .hasMessage("gap");
    }

    @Test
    void shouldGoOnWithAFreshLineageWhereOneEndedEarly() throws Exception {
        List<String> ran = new CrashCycles(null, 7, 10L).runEndingLineages(3, new ArrayList<String>(),
                (seed, cycles, t) -> {
                    t.add(cycles + "@" + seed);
                    return seed == 11 ? 1 : cycles; // the lineage from 11 ends after its first cycle
                });
        assertThat(ran).containsExactly("3@10", "3@11", "3@12"); // 3 + 1 + 3 cycles
        assertThatThrownBy(() -> new CrashCycles(null, 7, 10L).runEndingLineages(3, new ArrayList<>(),
                (seed, cycles, t) -> 0)).isInstanceOf(IllegalStateException.class);
    }
}
