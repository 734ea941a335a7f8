/**
 * Reading the store's files one by one, for tools: what {@code lacuna inspect wal|sst|manifest} prints, as
 * RocksDB's {@code ldb dump_wal}, {@code sst_dump} and {@code ldb manifest_dump} do. Each class opens one file
 * through the engine's own reader (the log's {@code SegmentScanner}, {@code SstableReader}, {@code Manifest}), so
 * it checks what recovery checks and reports damage as the engine does, a {@code CorruptionException} naming the
 * file and offset; it never changes the file. Results are plain records of numbers and text (keys decoded where
 * the key encoding allows, printable otherwise), so that the caller needs no internal type.
 *
 * <p>Internal: exported only to {@code dev.lacuna.fixtures} (the {@code lacuna} command), not part of the API.
 */
package dev.lacuna.inspect;
