package dev.lacuna.jfr;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import jdk.jfr.Event;
import jdk.jfr.EventType;

/**
 * Makes and commits one component's JFR events (a store's flushes, compactions and write stalls; an index
 * updater's applies) so that an event can never fail the work it describes. Events are telemetry: a type that
 * cannot be had (a runtime without jdk.jfr, whose classes then fail to link; an event class whose initialiser
 * failed) means no events, and an event that throws while it is made, ended or committed ends this guard's
 * events, logged once — where, unguarded, it would have failed a flush after its edit was durable, a write
 * after its stall, or an index updater for good.
 *
 * <p>Everything an event throws is taken as such a failure except a {@link VirtualMachineError} (out of
 * memory, a stack overflow, an internal error): the JVM may be unable to go on, and that is not the
 * telemetry's to hide. Thread-safe.
 */
public final class EventGuard {
    private static final System.Logger LOG = System.getLogger(EventGuard.class.getName());

    private final String component;
    private volatile boolean failed;

    /** A guard for the events of {@code component}, named in the log line of a failure. */
    public EventGuard(String component) {
        this.component = Objects.requireNonNull(component, "component");
    }

    /**
     * The event type {@code resolve} gives (as {@code () -> EventType.getEventType(MyEvent.class)}: the class is
     * loaded inside the guard), or null if it cannot be had; {@link #begin} then makes no event of it.
     */
    public EventType type(Supplier<EventType> resolve) {
        try {
            return resolve.get();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            failed(e);
            return null;
        }
    }

    /**
     * A new event from {@code create}, begun, if a recording wants events of {@code type}; null if none does,
     * if {@code type} is null, if an event of this guard failed before, or if this one failed to be made. Nothing
     * is allocated while no recording wants the event.
     */
    public <E extends Event> E begin(EventType type, Supplier<E> create) {
        if (type == null || failed) {
            return null;
        }
        try {
            if (!type.isEnabled()) {
                return null;
            }
            E event = create.get();
            event.begin();
            return event;
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            failed(e);
            return null;
        }
    }

    /**
     * Ends {@code event} (none if null) and, if the recording wants it, fills it with {@code fill} and commits it.
     * Never throws but a {@link VirtualMachineError}.
     */
    public <E extends Event> void commit(E event, Consumer<? super E> fill) {
        if (event == null || failed) {
            return;
        }
        try {
            event.end();
            if (event.shouldCommit()) {
                fill.accept(event);
                event.commit();
            }
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            failed(e);
        }
    }

    /** Whether an event of this guard failed, so that it makes no more. */
    public boolean failed() {
        return failed;
    }

    private void failed(Throwable e) {
        if (!failed) {
            failed = true;
            LOG.log(System.Logger.Level.WARNING, component + ": its JFR events failed and are no longer reported;"
                    + " its work goes on: " + e, e);
        }
    }
}
