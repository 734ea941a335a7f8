package dev.lacuna;

import java.util.List;

/**
 * What one {@link StreamConsumer#poll} returned: records, and the checkpoint that committing them sets.
 *
 * @param records    the records, in sequence-number order (possibly none)
 * @param checkpoint the log position the consumer has read through (the LSN of the last log record it read,
 *                   whether or not that record changed this table); {@link StreamConsumer#commit} it once the
 *                   records are handled
 */
public record StreamBatch(List<StreamRecord> records, long checkpoint) {
    /** Copies the list. */
    public StreamBatch {
        records = List.copyOf(records);
    }
}
