package dev.lacuna.sstable;

import dev.lacuna.base.InternalKey;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * What a table holds, recorded in its properties block when it is written and read back when it is
 * opened. The engine uses it to pick compactions (key and sequence ranges, tombstone density and age)
 * without reading the data. Immutable: the key accessors return copies.
 *
 * @param formatVersion       the table format version ({@code 1})
 * @param entries             entries of every kind
 * @param deletions           entries of kind {@code KIND_DELETE} or {@code KIND_SINGLE_DELETE}
 * @param dataBlocks          number of data blocks
 * @param dataSize            bytes of the stored data blocks, trailers included (the offset where they end)
 * @param rawKeySize          sum of the internal keys' lengths, before prefix compression
 * @param rawValueSize        sum of the values' lengths, before compression
 * @param smallestKey         the first internal key
 * @param largestKey          the last internal key
 * @param minSequence         smallest sequence number of any entry
 * @param maxSequence         largest sequence number of any entry
 * @param oldestTombstoneTime epoch millis supplied by the writer's caller as the time of the oldest
 *                            deletion in the table; {@link Long#MAX_VALUE} if it holds no deletion
 */
public record SstableProperties(int formatVersion, long entries, long deletions, long dataBlocks, long dataSize,
                              long rawKeySize, long rawValueSize, byte[] smallestKey, byte[] largestKey,
                              long minSequence, long maxSequence, long oldestTombstoneTime) {
    /** Copies the keys. */
    public SstableProperties {
        smallestKey = smallestKey.clone();
        largestKey = largestKey.clone();
    }

    /** A copy of the first internal key. */
    @Override
    public byte[] smallestKey() {
        return smallestKey.clone();
    }

    /** A copy of the last internal key. */
    @Override
    public byte[] largestKey() {
        return largestKey.clone();
    }

    /** Deletions per entry, 0 for an empty table. */
    public double tombstoneDensity() {
        return entries == 0 ? 0 : (double) deletions / entries;
    }

    /** Equal when every field is, keys compared by content. */
    @Override
    public boolean equals(Object o) {
        return o instanceof SstableProperties p && formatVersion == p.formatVersion && entries == p.entries
                && deletions == p.deletions && dataBlocks == p.dataBlocks && dataSize == p.dataSize
                && rawKeySize == p.rawKeySize && rawValueSize == p.rawValueSize
                && Arrays.equals(smallestKey, p.smallestKey) && Arrays.equals(largestKey, p.largestKey)
                && minSequence == p.minSequence && maxSequence == p.maxSequence
                && oldestTombstoneTime == p.oldestTombstoneTime;
    }

    /** Consistent with {@link #equals(Object)}. */
    @Override
    public int hashCode() {
        return Objects.hash(formatVersion, entries, deletions, dataBlocks, dataSize, rawKeySize, rawValueSize,
                Arrays.hashCode(smallestKey), Arrays.hashCode(largestKey), minSequence, maxSequence,
                oldestTombstoneTime);
    }

    /** Every field, keys in hex. */
    @Override
    public String toString() {
        HexFormat hex = HexFormat.of();
        return "SstableProperties[formatVersion=" + formatVersion + ", entries=" + entries + ", deletions="
                + deletions + ", dataBlocks=" + dataBlocks + ", dataSize=" + dataSize + ", rawKeySize="
                + rawKeySize + ", rawValueSize=" + rawValueSize + ", smallestKey=" + hex.formatHex(smallestKey)
                + ", largestKey=" + hex.formatHex(largestKey) + ", minSequence=" + minSequence
                + ", maxSequence=" + maxSequence + ", oldestTombstoneTime=" + oldestTombstoneTime + "]";
    }

    /** Encodes the properties block payload (see FORMAT.md). */
    void encodeTo(ByteSink out) {
        out.putVarint32(formatVersion);
        out.putVarint64(entries);
        out.putVarint64(deletions);
        out.putVarint64(dataBlocks);
        out.putVarint64(dataSize);
        out.putVarint64(rawKeySize);
        out.putVarint64(rawValueSize);
        out.putVarint64(minSequence);
        out.putVarint64(maxSequence);
        out.putLongLE(oldestTombstoneTime);
        out.putVarint32(smallestKey.length);
        out.putBytes(smallestKey, 0, smallestKey.length);
        out.putVarint32(largestKey.length);
        out.putBytes(largestKey, 0, largestKey.length);
    }

    /** Decodes a properties block payload {@code data[0..length)}, which it must fill exactly. */
    static SstableProperties decode(byte[] data, int length, String file, long fileOffset) {
        ByteReader in = new ByteReader(data, 0, length, file, fileOffset, "properties block");
        int version = in.varint32();
        if (version != SstableFormat.VERSION) {
            throw in.corrupt("format version " + version + " differs from the footer's " + SstableFormat.VERSION);
        }
        long entries = in.varint64();
        long deletions = in.varint64();
        long dataBlocks = in.varint64();
        long dataSize = in.varint64();
        long rawKeySize = in.varint64();
        long rawValueSize = in.varint64();
        long minSequence = in.varint64();
        long maxSequence = in.varint64();
        long oldestTombstoneTime = in.longLE();
        byte[] smallest = in.bytes(in.varint32());
        byte[] largest = in.bytes(in.varint32());
        in.expectEnd();
        if (deletions > entries || dataBlocks > entries || entries == 0 || minSequence > maxSequence
                || smallest.length < InternalKey.TRAILER_SIZE || largest.length < InternalKey.TRAILER_SIZE) {
            throw in.corrupt("inconsistent contents");
        }
        return new SstableProperties(version, entries, deletions, dataBlocks, dataSize, rawKeySize, rawValueSize,
                smallest, largest, minSequence, maxSequence, oldestTombstoneTime);
    }
}
