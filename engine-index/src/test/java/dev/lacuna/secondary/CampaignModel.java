package dev.lacuna.secondary;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one run of the {@link CampaignWorkload} asked of the database and what it was told: every item
 * write attempted (with the after-image it would leave, tagged with a unique write id in attribute
 * {@value #TAG}), whether the call returned (acknowledged), failed (outcome unknown: it may or may not be
 * there after a crash) or was refused by a condition (certainly not there); every schema the table was
 * asked to take; and every write whose value a reader saw. {@link CampaignCheck} compares a recovered
 * database with it.
 *
 * <p>The workload thread records writes; reader threads (if any) only add to {@link #seen}, which is
 * thread-safe.
 */
final class CampaignModel {
    /** The attribute that carries each write's unique tag, so a value read or recovered names its write. */
    static final String TAG = "v";

    /** What a call told about a write. */
    enum Outcome {
        /** Not returned yet. */
        PENDING,
        /** Returned normally: the write is acknowledged. */
        ACKED,
        /** Threw something other than a condition failure: it may or may not have happened. */
        FAILED,
        /** A condition failed: certainly nothing was written. */
        REFUSED
    }

    /**
     * One attempted write of one item.
     *
     * @param after    the item it leaves (its tag included), or null for a deletion
     * @param sync     whether it asked for {@code SYNC} durability
     * @param txn      the transaction (or batch) it belongs to, -1 if alone; a transaction's writes share it
     * @param position its 1-based position in its item's history
     */
    record Write(String tag, String key, Item after, boolean sync, int txn, int position) {
    }

    private final Map<String, List<Write>> histories = new LinkedHashMap<>();
    private final Map<String, Write> byTag = new HashMap<>();
    /** By identity: a write's record equality would hash its whole item on every lookup. */
    private final Map<Write, Outcome> outcomes = new IdentityHashMap<>();
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    /** Index names of each schema the table was asked to take, in order; the first is its creation. */
    private final List<Set<String>> schemas = new ArrayList<>();
    private final List<Outcome> schemaOutcomes = new ArrayList<>();
    private int nextTag = 1;
    private int nextTxn = 1;

    /** A fresh tag for the next write. */
    String newTag() {
        return "w" + nextTag++;
    }

    /** A fresh transaction (or batch) id. */
    int newTxn() {
        return nextTxn++;
    }

    /** Records an attempted write of item {@code key}; {@code after} carries {@code tag}, or is null for a delete. */
    Write attempt(String key, String tag, Item after, boolean sync, int txn) {
        List<Write> history = histories.computeIfAbsent(key, k -> new ArrayList<>());
        Write w = new Write(tag, key, after, sync, txn, history.size() + 1);
        history.add(w);
        byTag.put(tag, w);
        outcomes.put(w, Outcome.PENDING);
        return w;
    }

    /**
     * Records what the call that made {@code writes} returned. An acknowledgement is never taken back: a
     * retry of an acknowledged transaction that fails says nothing about the first attempt.
     */
    void settle(List<Write> writes, Outcome outcome) {
        for (Write w : writes) {
            if (outcomes.get(w) != Outcome.ACKED) {
                outcomes.put(w, outcome);
            }
        }
    }

    /** Records that a schema with these index names was asked for; returns its number for {@link #settleSchema}. */
    int attemptSchema(Set<String> indexNames) {
        schemas.add(Set.copyOf(indexNames));
        schemaOutcomes.add(Outcome.PENDING);
        return schemas.size() - 1;
    }

    void settleSchema(int number, Outcome outcome) {
        schemaOutcomes.set(number, outcome);
    }

    /** Records the write whose value a reader was given (by the tag in the item or index entry it read). */
    void saw(Item item) {
        AttributeValue tag = item.get(TAG);
        if (tag instanceof AttributeValue.S s) {
            seen.add(s.value());
        }
    }

    Outcome outcome(Write w) {
        return outcomes.get(w);
    }

    Map<String, List<Write>> histories() {
        return histories;
    }

    Write byTag(String tag) {
        return byTag.get(tag);
    }

    Set<String> seenTags() {
        return Set.copyOf(seen);
    }

    List<Set<String>> schemas() {
        return schemas;
    }

    List<Outcome> schemaOutcomes() {
        return schemaOutcomes;
    }

    /** The acknowledged writes, for the reports: how much a run had to lose. */
    long acknowledged() {
        return outcomes.values().stream().filter(o -> o == Outcome.ACKED).count();
    }
}
