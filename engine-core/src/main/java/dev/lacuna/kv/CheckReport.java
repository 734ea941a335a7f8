package dev.lacuna.kv;

/**
 * What {@link KvStore#verifyChecksums()} read and found intact.
 *
 * @param tables         SSTables the manifest names, each read whole and checked against the manifest
 * @param entries        entries in them (every version and deletion)
 * @param tableBytes     bytes of SSTables read
 * @param manifestEdits  edits in the current manifest, each checked against its checksum
 * @param logRecords     records of the write-ahead log read back and checked
 */
public record CheckReport(long tables, long entries, long tableBytes, long manifestEdits, long logRecords) {
}
