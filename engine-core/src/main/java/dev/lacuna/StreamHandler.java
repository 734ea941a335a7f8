package dev.lacuna;

import java.util.List;

/** What a {@link StreamProcessor} calls with each batch of records, in order, from its background thread. */
@FunctionalInterface
public interface StreamHandler {
    /**
     * Handles records (never an empty list). The consumer's checkpoint moves past them once this returns; if it
     * throws, the processor stops without moving it (the records are delivered again to the next processor).
     */
    void handle(List<StreamRecord> records) throws Exception;
}
