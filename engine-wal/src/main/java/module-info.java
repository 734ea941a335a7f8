/**
 * Lacuna's storage base: the file-system abstraction ({@code dev.lacuna.vfs}), the types every layer shares
 * ({@code dev.lacuna.storage}: exceptions, durability, log settings) and the write-ahead log
 * ({@code dev.lacuna.wal}, for the engine only, and for the log's own benchmark); and the crash-testing kit
 * ({@code dev.lacuna.vfs.testing}: a file system broken on purpose and the crash-cycle driver) that Lacuna's crash
 * suites, {@code lacuna crashtest} and users' crash tests share.
 */
module dev.lacuna.wal {
    // JFR events (dev.lacuna.LogSync); committed by the engine, recorded only when a user records them.
    requires jdk.jfr;

    exports dev.lacuna.storage;
    exports dev.lacuna.vfs;
    exports dev.lacuna.vfs.testing;
    exports dev.lacuna.wal to dev.lacuna.core, dev.lacuna.benchmarks;
    exports dev.lacuna.jfr to dev.lacuna.core, dev.lacuna.secondary;
}
