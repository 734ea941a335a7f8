package dev.lacuna.secondary;

import dev.lacuna.Database;
import dev.lacuna.secondary.CorruptionTargets.Applied;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.LacunaException;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Opens a damaged store and says what became of the damage. The rule (issue 15, TESTING.md layer 8): the
 * open recovers everything acknowledged, or refuses naming the damaged file (and the offset, which a
 * {@link CorruptionException} always carries), having deleted and changed nothing.
 * <ul>
 *   <li>{@link Outcome#INTACT}: opened; every acknowledged write reads back with its acknowledged value, and
 *       every GSI equals its recomputation after catch-up ({@link CampaignCheck}, the fault campaign's check);
 *       then every acknowledged transaction with a client request token, retried, is recognised and writes
 *       nothing (the same comparison again), which reads the tokens keyspace.</li>
 *   <li>{@link Outcome#REFUSED}: the open threw an exception naming the damaged file, and every file of the
 *       directory is byte-identical to what it was before the open.</li>
 *   <li>{@link Outcome#DETECTED_AT_READ}: opened, but a read of the check failed with a
 *       {@link CorruptionException} naming the damaged file. Only an SSTable can end here: the open checks
 *       that every table the manifest names exists, not every block of it (that would read the whole store
 *       on every open); a block is verified when first read, and a read of a damaged one fails loudly,
 *       naming the table and the block's offset — the data is not lost silently, it is reported where it is
 *       needed. Counted as detected, not as a silent loss.</li>
 *   <li>{@link Outcome#LOOKS_TORN}: only where a power loss left the last log segment unclosed, and only for
 *       damage to that segment: opened, and the store holds exactly the writes of a prefix of the log (every
 *       item as of one point of the history, no transaction split, every GSI equal to its recomputation), as a
 *       crash that tore the log there would have left it. The records lost were made durable after the
 *       manifest last recorded how far the log was durable (before it, the open refuses: the same damage to the
 *       closed store must be refused, and {@code LogCutAtRestTest} checks the bound); the end of a segment never
 *       closed, cut or garbled with nothing after it, is a torn write to anything that reads these bytes (the
 *       log's FORMAT.md, "Limits of the rule"). Counted apart, not as a silent loss, and reported.</li>
 *   <li>{@link Outcome#SILENT_LOSS}: opened, and an acknowledged write is missing or older, a value no write
 *       carried is read, or a GSI differs from its recomputation.</li>
 *   <li>{@link Outcome#REFUSED_TOUCHING_FILES}: refused, after deleting or changing a file.</li>
 *   <li>{@link Outcome#UNNAMED}: refused, or a read failed, without naming the damaged file (another file, or
 *       none, or an exception that is not the engine's: a bug in a decoder behind a checksum).</li>
 * </ul>
 */
final class CorruptionCheck {
    enum Outcome { INTACT, REFUSED, DETECTED_AT_READ, LOOKS_TORN, SILENT_LOSS, REFUSED_TOUCHING_FILES, UNNAMED }

    /**
     * What one damaged store did.
     *
     * @param touched files a refused open deleted or changed (empty unless refused)
     * @param detail  the refusal or read error, or the check's problems
     * @param offset  the offset a {@link CorruptionException} naming the damaged file gave, or -1
     */
    record Result(Applied damage, Outcome outcome, List<String> touched, String detail, long offset) {
        boolean problem() {
            return outcome == Outcome.SILENT_LOSS || outcome == Outcome.REFUSED_TOUCHING_FILES
                    || outcome == Outcome.UNNAMED;
        }
    }

    private CorruptionCheck() {
    }

    /**
     * Opens {@code disk} (damaged by {@code damage}) through {@code breakage} (the identity, or a deliberately
     * broken file system) and checks it against {@code model}.
     */
    static Result check(MemVfs disk, Applied damage, CampaignModel model,
                        List<CorruptionWorkload.TokenTransaction> tokens, UnaryOperator<Vfs> breakage,
                        boolean tornTailPossible) {
        Map<String, byte[]> before = CampaignCheck.files(disk);
        Database db;
        try {
            db = Database.open(CampaignWorkload.DIR, CorruptionWorkload.options(breakage.apply(disk)));
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            List<String> touched = CampaignCheck.touched(before, CampaignCheck.files(disk));
            if (!touched.isEmpty()) {
                return new Result(damage, Outcome.REFUSED_TOUCHING_FILES, touched, describe(e), -1);
            }
            long offset = offset(e, damage);
            boolean named = e instanceof LacunaException && names(e, damage);
            return new Result(damage, named ? Outcome.REFUSED : Outcome.UNNAMED, touched, describe(e), offset);
        }
        try {
            CampaignCheck.Verdict verdict = CampaignCheck.compare(db, model, true);
            if (verdict.clean()) {
                // The tokens keyspace too: every acknowledged token transaction, retried, must be known (and write
                // nothing, which a second comparison checks).
                for (CorruptionWorkload.TokenTransaction t : tokens) {
                    db.transactWriteItems(t.ops(), t.token());
                }
                verdict = CampaignCheck.compare(db, model, true);
            }
            if (verdict.clean()) {
                return new Result(damage, Outcome.INTACT, List.of(), "", -1);
            }
            String problems = String.join("; ", verdict.problems().subList(0, Math.min(4, verdict.problems().size())));
            if (tornTailPossible && verdict.unexplained() == 0 && verdict.torn() == 0 && verdict.indexMismatches() == 0) {
                long prefix = LogPrefix.of(db, model);
                if (prefix >= 0) {
                    return new Result(damage, Outcome.LOOKS_TORN, List.of(), "the store is the log's prefix up to write w"
                            + prefix + " (" + verdict.lostAcknowledged() + " items older than acknowledged): " + problems, -1);
                }
            }
            return new Result(damage, Outcome.SILENT_LOSS, List.of(), problems, -1);
        } catch (RuntimeException | AssertionError e) {
            boolean detected = corruption(e) != null && names(e, damage);
            return new Result(damage, detected ? Outcome.DETECTED_AT_READ : Outcome.UNNAMED, List.of(), describe(e),
                    offset(e, damage));
        } finally {
            try {
                db.close();
            } catch (RuntimeException e) {
                // a store that found damage may refuse to close cleanly too; what matters was checked above
            }
        }
    }

    /** Whether {@code e}, its causes or what it suppressed name the damaged file. */
    private static boolean names(Throwable e, Applied damage) {
        for (Throwable t : chain(e)) {
            if (t instanceof CorruptionException c && c.file() != null && c.file().endsWith(damage.fileName())) {
                return true;
            }
            if (String.valueOf(t.getMessage()).contains(damage.fileName())) {
                return true;
            }
        }
        return false;
    }

    /** The first {@link CorruptionException} in {@code e}'s causes. */
    private static CorruptionException corruption(Throwable e) {
        for (Throwable t : chain(e)) {
            if (t instanceof CorruptionException c) {
                return c;
            }
        }
        return null;
    }

    private static long offset(Throwable e, Applied damage) {
        for (Throwable t : chain(e)) {
            if (t instanceof CorruptionException c && c.file() != null && c.file().endsWith(damage.fileName())) {
                return c.offset();
            }
        }
        return -1;
    }

    private static List<Throwable> chain(Throwable e) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = e; t != null && chain.size() < 10; t = t.getCause()) {
            chain.add(t);
            for (Throwable s : t.getSuppressed()) {
                chain.add(s);
            }
        }
        return chain;
    }

    private static String describe(Throwable e) {
        StringBuilder s = new StringBuilder(e.toString());
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            s.append(" <- ").append(t);
        }
        for (StackTraceElement frame : e.getStackTrace()) {
            if (frame.getClassName().startsWith("dev.lacuna") && !frame.getClassName().contains("secondary.Corruption")) {
                s.append(" at ").append(frame.getClassName().substring(frame.getClassName().lastIndexOf('.') + 1))
                        .append('.').append(frame.getMethodName());
                break;
            }
        }
        return s.toString();
    }
}
