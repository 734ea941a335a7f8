package dev.lacuna.secondary;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.Item;
import dev.lacuna.Scan;
import dev.lacuna.secondary.CampaignModel.Write;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Whether a recovered table is what replaying a prefix of the log leaves: a single point in the history of a
 * {@link CampaignModel} (written by one thread, so its write tags {@code w1, w2, …} are in log order) such
 * that every item is as the last write up to that point left it, and no transaction or batch (one log
 * record) is split by the point. That is all a power loss that tears the log can leave.
 */
final class LogPrefix {
    private LogPrefix() {
    }

    /**
     * The number of the last write of the prefix the table of {@code db} holds (0: none), or -1 if it is not
     * a prefix of the history.
     */
    static long of(Database db, CampaignModel model) {
        Map<String, Item> recovered = new HashMap<>();
        for (Item item : IndexChecker.scanAll(db, CampaignWorkload.TABLE, new Scan())) {
            recovered.put(((AttributeValue.S) item.get("pk")).value(), item);
        }
        List<Write> writes = new ArrayList<>();
        model.histories().values().forEach(writes::addAll);
        writes.sort(Comparator.comparingLong(LogPrefix::number));
        if (!model.histories().keySet().containsAll(recovered.keySet())) {
            return -1; // an item no write made
        }
        // Walk the history forward, keeping each item's state; after every whole record, compare.
        Map<String, Item> state = new HashMap<>();
        int mismatched = 0;
        for (String key : model.histories().keySet()) {
            if (recovered.get(key) != null) {
                mismatched++;
            }
        }
        if (mismatched == 0) {
            return 0;
        }
        for (int i = 0; i < writes.size(); i++) {
            Write w = writes.get(i);
            boolean before = Objects.equals(state.get(w.key()), recovered.get(w.key()));
            state.put(w.key(), w.after());
            boolean after = Objects.equals(state.get(w.key()), recovered.get(w.key()));
            mismatched += (before ? 1 : 0) - (after ? 1 : 0);
            boolean recordEnds = i + 1 == writes.size() || w.txn() < 0 || writes.get(i + 1).txn() != w.txn();
            if (recordEnds && mismatched == 0) {
                return number(w);
            }
        }
        return -1;
    }

    private static long number(Write w) {
        return Long.parseLong(w.tag().substring(1));
    }
}
