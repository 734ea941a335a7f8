package dev.lacuna.wal;

import java.nio.file.Path;

/**
 * Where the log reports its fsyncs: JFR's {@code dev.lacuna.LogSync} event ({@link JfrSyncEvents}) unless a
 * test passes another. Reports are telemetry: the log makes a sync's records durable, and says so, whatever a
 * report does (see {@code Wal.syncTo}).
 */
interface SyncEvents {
    /**
     * Starts timing an fsync about to run, or returns null if nothing wants it: the sync path then allocates
     * nothing.
     */
    Timing begin();

    /** One fsync being timed. */
    interface Timing {
        /** The fsync returned. */
        void end();

        /** Reports the fsync of {@code log}: the {@code records} it made durable, the {@code bytes} it forced. */
        void commit(Path log, long records, long bytes);
    }
}
