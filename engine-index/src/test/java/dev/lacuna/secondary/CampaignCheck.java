package dev.lacuna.secondary;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.Item;
import dev.lacuna.Scan;
import dev.lacuna.TableSpec;
import dev.lacuna.secondary.CampaignModel.Outcome;
import dev.lacuna.secondary.CampaignModel.Write;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.MemVfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Opens the database a power loss left and compares it with the {@link CampaignModel} of the run:
 * <ul>
 *   <li><b>lost acknowledged</b>: an item whose recovered state is older than its last acknowledged
 *       {@code SYNC} write (or not any write's at all), a table or a schema change acknowledged and gone;</li>
 *   <li><b>visible then lost</b>: an item a reader saw with a {@code SYNC} write's value, recovered older
 *       than that write;</li>
 *   <li><b>unopenable</b>: the store refused to open (whether the refusal names a file and left every file
 *       as it was is reported beside);</li>
 *   <li><b>index mismatches</b>: after catch-up, entries of a GSI that differ from its recomputation from
 *       the table as recovered (or a GSI that cannot catch up);</li>
 *   <li>besides: <b>torn transactions</b> (an unacknowledged transaction recovered in part) and
 *       <b>unexplained values</b> (a value no write of that item carried, read or recovered).</li>
 * </ul>
 * Every count comes from a comparison made; each mismatch adds a line to {@link Verdict#problems()}.
 */
final class CampaignCheck {
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** What one check found. */
    record Verdict(int lostAcknowledged, int visibleThenLost, int unopenable, int indexMismatches, int torn,
                   int unexplained, boolean refusalTouchedFiles, List<String> problems) {
        static Verdict refused(String problem, boolean touchedFiles) {
            return new Verdict(0, 0, 1, 0, 0, 0, touchedFiles, List.of(problem));
        }

        boolean clean() {
            return problems.isEmpty();
        }
    }

    private final CampaignModel model;
    private final boolean readErrorsPropagate;
    private final List<String> problems = new ArrayList<>();
    private int lost;
    private int visibleThenLost;
    private int indexMismatches;
    private int torn;
    private int unexplained;

    private CampaignCheck(CampaignModel model, boolean readErrorsPropagate) {
        this.model = model;
        this.readErrorsPropagate = readErrorsPropagate;
    }

    /** Opens the database on {@code crashed} and checks it against {@code model}. */
    static Verdict check(MemVfs crashed, CampaignModel model) {
        Map<String, byte[]> before = files(crashed);
        Database db;
        try {
            db = Database.open(CampaignWorkload.DIR, CampaignWorkload.options(crashed));
        } catch (RuntimeException e) {
            Map<String, byte[]> after = files(crashed);
            return Verdict.refused(refusal(e, before, after), !touched(before, after).isEmpty());
        }
        try {
            return compare(db, model, false);
        } finally {
            db.close();
        }
    }

    /**
     * Compares an open database with {@code model}.
     *
     * @param readErrorsPropagate whether a read that fails (an index that cannot catch up included) throws
     *                            out of this method rather than counting as an index mismatch: the corruption
     *                            suite tells a read that reports the damage from one that hides it
     */
    static Verdict compare(Database db, CampaignModel model, boolean readErrorsPropagate) {
        CampaignCheck check = new CampaignCheck(model, readErrorsPropagate);
        check.compare(db);
        return new Verdict(check.lost, check.visibleThenLost, 0, check.indexMismatches, check.torn,
                check.unexplained, false, List.copyOf(check.problems));
    }

    /** Describes a refused open: what it said, whether it named a file, and what it deleted or changed. */
    private static String refusal(RuntimeException e, Map<String, byte[]> before, Map<String, byte[]> after) {
        boolean namesFile = e instanceof CorruptionException c ? c.file() != null
                : e instanceof StorageIOException && String.valueOf(e.getMessage()).contains(CampaignWorkload.DIR.toString());
        List<String> touched = touched(before, after);
        StringBuilder where = new StringBuilder();
        for (StackTraceElement frame : e.getStackTrace()) {
            if (frame.getClassName().startsWith("dev.lacuna") && where.length() < 300) {
                where.append(where.length() == 0 ? " at " : " < ").append(frame.getClassName()
                        .substring(frame.getClassName().lastIndexOf('.') + 1)).append('.').append(frame.getMethodName());
            }
        }
        return "refused to open: " + e + where + (namesFile ? "" : " [names no file]")
                + (touched.isEmpty() ? " [left every file as it was]" : " " + touched);
    }

    /** The files of {@code before} that are gone or different in {@code after}. */
    static List<String> touched(Map<String, byte[]> before, Map<String, byte[]> after) {
        List<String> touched = new ArrayList<>();
        before.forEach((name, bytes) -> {
            byte[] now = after.get(name);
            if (now == null) {
                touched.add("deleted " + name);
            } else if (!Arrays.equals(bytes, now)) {
                touched.add("changed " + name);
            }
        });
        return touched;
    }

    /** Every file under the database directory, by path, with its content. */
    static Map<String, byte[]> files(MemVfs vfs) {
        Map<String, byte[]> files = new TreeMap<>();
        try {
            if (vfs.exists(CampaignWorkload.DIR)) {
                collect(vfs, CampaignWorkload.DIR, files);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private static void collect(MemVfs vfs, Path dir, Map<String, byte[]> files) throws IOException {
        for (String name : vfs.list(dir)) {
            Path path = dir.resolve(name);
            try {
                vfs.list(path);
                collect(vfs, path, files);
            } catch (NotDirectoryException e) {
                files.put(path.toString(), vfs.readAll(path));
            }
        }
    }

    private void compare(Database db) {
        boolean tableThere = db.listTables().contains(CampaignWorkload.TABLE);
        checkSchema(db, tableThere);
        Map<String, Item> items = new HashMap<>();
        if (tableThere) {
            for (Item item : IndexChecker.scanAll(db, CampaignWorkload.TABLE, new Scan())) {
                items.put(((AttributeValue.S) item.get("pk")).value(), item);
            }
        }
        Map<String, Integer> recoveredAt = new HashMap<>();
        Set<String> seen = model.seenTags();
        for (Map.Entry<String, List<Write>> e : model.histories().entrySet()) {
            String key = e.getKey();
            Item recovered = items.remove(key);
            int at = explain(key, e.getValue(), recovered);
            recoveredAt.put(key, at);
            int acked = 0;
            for (Write w : e.getValue()) {
                if (w.sync() && model.outcome(w) == Outcome.ACKED) {
                    acked = w.position();
                }
            }
            if (at < acked) {
                lost++;
                problems.add("lost acknowledged: " + key + " recovered as " + recovered + ", but write "
                        + e.getValue().get(acked - 1) + " was acknowledged");
            }
            for (Write w : e.getValue()) {
                if (w.sync() && seen.contains(w.tag()) && at < w.position()) {
                    visibleThenLost++;
                    problems.add("visible then lost: " + key + " was read as " + w + " (" + model.outcome(w)
                            + "), recovered as " + recovered);
                }
            }
        }
        for (Item extra : items.values()) {
            unexplained++;
            problems.add("unexplained item recovered: " + extra);
        }
        for (String tag : seen) {
            if (model.byTag(tag) == null) {
                unexplained++;
                problems.add("a reader saw a value no write carried: " + tag);
            }
        }
        checkTransactions(recoveredAt);
        if (tableThere) {
            checkIndexes(db);
        }
    }

    /**
     * The position in the item's history whose state the recovered item is: the write whose tag and image it
     * carries, or (if absent) the latest deletion or 0 (never written). -1 if no write explains it.
     */
    private int explain(String key, List<Write> history, Item recovered) {
        if (recovered == null) {
            int at = 0;
            for (Write w : history) {
                if (w.after() == null && model.outcome(w) != Outcome.REFUSED) {
                    at = w.position();
                }
            }
            return at;
        }
        AttributeValue tag = recovered.get(CampaignModel.TAG);
        Write w = tag instanceof AttributeValue.S s ? model.byTag(s.value()) : null;
        if (w == null || !w.key().equals(key) || !recovered.equals(w.after()) || model.outcome(w) == Outcome.REFUSED) {
            unexplained++;
            problems.add("unexplained value: " + key + " recovered as " + recovered
                    + (w == null ? "" : ", which write " + w + " (" + model.outcome(w) + ") does not explain"));
            return -1;
        }
        return w.position();
    }

    /** An unacknowledged transaction recovered on one item must be recovered (or overwritten) on all of them. */
    private void checkTransactions(Map<String, Integer> recoveredAt) {
        Map<Integer, List<Write>> txns = new TreeMap<>();
        for (List<Write> history : model.histories().values()) {
            for (Write w : history) {
                if (w.txn() >= 0 && model.outcome(w) != Outcome.ACKED) {
                    txns.computeIfAbsent(w.txn(), t -> new ArrayList<>()).add(w);
                }
            }
        }
        for (List<Write> writes : txns.values()) {
            boolean anyIn = writes.stream().anyMatch(w -> w.after() != null && recoveredAt.get(w.key()) == w.position());
            boolean allIn = writes.stream().allMatch(w -> recoveredAt.get(w.key()) >= w.position());
            if (anyIn && !allIn) {
                torn++;
                problems.add("torn transaction: " + writes + " recovered at positions "
                        + writes.stream().map(w -> recoveredAt.get(w.key())).toList());
            }
        }
    }

    /** The recovered indexes must be those of the last acknowledged schema, or of a later one asked for. */
    private void checkSchema(Database db, boolean tableThere) {
        List<Set<String>> schemas = model.schemas();
        int lastAcked = -1;
        for (int i = 0; i < schemas.size(); i++) {
            if (model.schemaOutcomes().get(i) == Outcome.ACKED) {
                lastAcked = i;
            }
        }
        if (!tableThere) {
            if (lastAcked >= 0) {
                lost++;
                problems.add("lost acknowledged: table " + CampaignWorkload.TABLE + " is gone");
            }
            return;
        }
        TableSpec spec = db.describeTable(CampaignWorkload.TABLE).spec();
        Set<String> names = new LinkedHashSet<>();
        spec.indexes().forEach(index -> names.add(index.name()));
        Set<Set<String>> allowed = new HashSet<>();
        for (int i = Math.max(lastAcked, 0); i < schemas.size(); i++) {
            if (i == lastAcked || model.schemaOutcomes().get(i) != Outcome.REFUSED) {
                allowed.add(schemas.get(i));
            }
        }
        if (!allowed.contains(names)) {
            lost++;
            problems.add("lost acknowledged: the table's indexes are " + names + ", not one of " + allowed
                    + " (schemas asked for: " + schemas + " " + model.schemaOutcomes() + ")");
        }
    }

    private void checkIndexes(Database db) {
        try {
            List<IndexChecker.Report> reports = IndexChecker.checkAll(db, CampaignWorkload.TABLE, WAIT);
            int mismatches = IndexChecker.mismatches(reports);
            if (mismatches > 0) {
                indexMismatches += mismatches;
                problems.add("index mismatches: " + reports);
            }
        } catch (RuntimeException | AssertionError e) {
            if (readErrorsPropagate) {
                throw e;
            }
            indexMismatches++;
            problems.add("index check failed: " + e);
        }
    }
}
