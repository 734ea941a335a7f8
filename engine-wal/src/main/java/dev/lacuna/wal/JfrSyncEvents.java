package dev.lacuna.wal;

import jdk.jfr.EventType;

/**
 * {@link SyncEvents} as JFR {@link LogSyncEvent}s, committed only while a recording wants them. If the event's
 * type cannot be had (a runtime without jdk.jfr: its classes fail to link), there are none: nothing times or
 * reports a sync, and the log works as without a recording.
 */
final class JfrSyncEvents implements SyncEvents {
    private static final System.Logger LOG = System.getLogger(JfrSyncEvents.class.getName());

    /**
     * The event's type, read before anything is allocated: a sync costs nothing more while no recording wants
     * it. Null if JFR is unavailable.
     */
    private final EventType type = resolve();

    private static EventType resolve() {
        try {
            return EventType.getEventType(LogSyncEvent.class);
        } catch (LinkageError | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "JFR is unavailable; the write-ahead log reports no fsync events: "
                    + e);
            return null;
        }
    }

    @Override
    public Timing begin() {
        if (type == null || !type.isEnabled()) {
            return null;
        }
        LogSyncEvent event = new LogSyncEvent();
        event.begin();
        return event;
    }
}
