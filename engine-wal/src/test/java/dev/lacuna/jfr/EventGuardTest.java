package dev.lacuna.jfr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;

/**
 * Review M4: a JFR event must never fail the work it describes (a flush, a compaction, a stalled write, an index
 * apply). The sites resolved their event's type in its class's static initialiser and committed it unguarded.
 */
class EventGuardTest {
    @Name("dev.lacuna.test.Guarded")
    static final class GuardedEvent extends Event {
        long value;
    }

    @Test
    void shouldMakeNoEventsOfATypeThatCannotBeHad() {
        EventGuard guard = new EventGuard("test");
        // What referring to an event class whose static initialiser failed throws.
        EventType type = guard.type(() -> {
            throw new ExceptionInInitializerError("no jdk.jfr");
        });
        assertThat(type).isNull();
        AtomicInteger made = new AtomicInteger();
        GuardedEvent event = guard.begin(type, () -> {
            made.incrementAndGet();
            return new GuardedEvent();
        });
        assertThat(event).isNull();
        assertThat(made).hasValue(0);
        guard.commit(null, e -> { });
    }

    @Test
    void shouldSwallowAnEventThatFailsToBeMadeOrCommittedAndMakeNoMore() {
        try (Recording recording = new Recording()) {
            recording.enable(GuardedEvent.class).withoutThreshold();
            recording.start();
            EventGuard guard = new EventGuard("test");
            EventType type = guard.type(() -> EventType.getEventType(GuardedEvent.class));
            assertThat(type).isNotNull();

            GuardedEvent unmade = guard.begin(type, () -> {
                throw new NoClassDefFoundError("Could not initialize class GuardedEvent");
            });
            assertThat(unmade).isNull();
            assertThat(guard.failed()).isTrue();
            assertThat(guard.begin(type, GuardedEvent::new)).as("no events once one failed").isNull();

            EventGuard second = new EventGuard("test");
            GuardedEvent event = second.begin(type, GuardedEvent::new);
            assertThat(event).isNotNull();
            second.commit(event, e -> {
                throw new IllegalStateException("commit failed");
            });
            assertThat(second.failed()).isTrue();
        }
    }

    @Test
    void shouldNotSwallowAVirtualMachineError() {
        try (Recording recording = new Recording()) {
            recording.enable(GuardedEvent.class).withoutThreshold();
            recording.start();
            EventGuard guard = new EventGuard("test");
            EventType type = guard.type(() -> EventType.getEventType(GuardedEvent.class));
            GuardedEvent event = guard.begin(type, GuardedEvent::new);
            assertThatThrownBy(() -> guard.commit(event, e -> {
                throw new OutOfMemoryError("test");
            })).isInstanceOf(OutOfMemoryError.class);
        }
    }
}
