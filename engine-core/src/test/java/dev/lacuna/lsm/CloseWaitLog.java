package dev.lacuna.lsm;

import java.util.concurrent.CountDownLatch;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures the INFO line a close logs when it waits for work running in callers' threads ("... waits for ..."),
 * which is how the close tests know that close has reached its wait. {@link #start} before the test, {@link #stop}
 * after it.
 */
final class CloseWaitLog {
    // Held strongly while the test runs: java.util.logging keeps loggers weakly.
    private final Logger logger = Logger.getLogger(Db.class.getName());
    /** Counted down once close said it waits. */
    final CountDownLatch closeWaits = new CountDownLatch(1);
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getMessage() != null && record.getMessage().contains("waits for")) {
                closeWaits.countDown();
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Level savedLevel;

    void start() {
        savedLevel = logger.getLevel();
        logger.setLevel(Level.INFO); // the tests log SEVERE only
        logger.setUseParentHandlers(false); // captured here, not printed
        logger.addHandler(handler);
    }

    void stop() {
        logger.removeHandler(handler);
        logger.setLevel(savedLevel);
        logger.setUseParentHandlers(true);
    }
}
