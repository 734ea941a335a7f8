package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Review of the streams branch: the log's batch record became version 2 (write time, flags) and the keyspace
 * descriptor version 4, but the directory format ({@link VersionSet#STORE_FORMAT}, "the formats of the manifest,
 * the log, the tables and the log records together", manifest/FORMAT.md) stayed 1. The Lacuna before the change
 * (9ef0839) therefore opens a store written after it as format 1 and fails in replay with
 * {@code CorruptionException: log record is not a key/value batch} (BatchCodec there accepts type 1 only), or
 * "unsupported descriptor version 4": a newer store reported as damaged, not refused as
 * {@code IncompatibleStoreException} ("written by a newer Lacuna") as the format contract promises.
 */
class StoreFormatAfterBatchV2Test {
    @Disabled("reproduces bug: log record/descriptor formats changed without raising the directory format")
    @Test
    void shouldRaiseTheDirectoryFormatWhenTheLogRecordFormatChanges() {
        assertThat(BatchCodec.TYPE_KV_BATCH).isEqualTo(2);
        assertThat(VersionSet.STORE_FORMAT)
                .as("directory format of a store whose log holds batch type %d records, which format 1 readers refuse"
                        + " as corruption", BatchCodec.TYPE_KV_BATCH)
                .isGreaterThan(1);
    }
}
