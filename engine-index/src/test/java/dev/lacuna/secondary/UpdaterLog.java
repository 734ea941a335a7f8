package dev.lacuna.secondary;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures everything {@link GlobalIndexUpdater} logs (through System.Logger, routed to java.util.logging in the
 * tests) from its creation until {@link #close}, instead of printing it; for the tests that assert what the updater
 * said.
 */
final class UpdaterLog implements AutoCloseable {
    // Held strongly while capturing: java.util.logging keeps loggers weakly.
    private final Logger logger = Logger.getLogger(GlobalIndexUpdater.class.getName());
    final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Level savedLevel;
    private final boolean savedUseParent;

    UpdaterLog() {
        savedLevel = logger.getLevel();
        savedUseParent = logger.getUseParentHandlers();
        logger.setLevel(Level.ALL);
        logger.setUseParentHandlers(false);
        logger.addHandler(handler);
    }

    /** What was logged at {@code level} or above, each as its message and the exception's, if any. */
    List<String> atLeast(Level level) {
        return records.stream().filter(r -> r.getLevel().intValue() >= level.intValue())
                .map(r -> r.getMessage() + (r.getThrown() == null ? "" : ": " + r.getThrown())).toList();
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
        logger.setLevel(savedLevel);
        logger.setUseParentHandlers(savedUseParent);
    }
}
