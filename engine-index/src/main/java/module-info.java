/**
 * Lacuna's secondary indexes: global ones kept from the log by a background updater, local ones in the
 * write itself. Exports nothing; {@link dev.lacuna.Database} finds the kinds through
 * {@link java.util.ServiceLoader}.
 */
module dev.lacuna.secondary {
    requires transitive dev.lacuna.core;
    // JFR events (dev.lacuna.IndexApply); recorded only when a user records them.
    requires jdk.jfr;

    provides dev.lacuna.index.IndexKind with dev.lacuna.secondary.GlobalIndexKind, dev.lacuna.secondary.LocalIndexKind;
}
