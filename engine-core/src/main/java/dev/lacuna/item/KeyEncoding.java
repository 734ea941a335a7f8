package dev.lacuna.item;

import dev.lacuna.AttributeValue;
import dev.lacuna.AttributeValue.Type;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.Key;
import dev.lacuna.ValidationException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Order-preserving encoding of primary keys into the byte strings the LSM tree sorts (layout in
 * {@code FORMAT.md} beside this class, "Key encoding", version {@value #FORMAT_VERSION}).
 *
 * <p>A key is {@code tableId | partitionKey | sortKey?}: a 4-byte big-endian table id, then one
 * <em>component</em> per key attribute. A component is a type byte and a payload; strings (UTF-8) and
 * binaries are escaped ({@code 00 → 00 FF}) and terminated ({@code 00 01}), numbers use
 * {@link NumberEncoding}. Every component is self-delimiting and no component is a proper prefix of
 * another, so comparing two keys' bytes (unsigned) compares table ids, then partition keys, then sort
 * keys, each in DynamoDB's order: strings by UTF-8 bytes, binaries bytewise unsigned, numbers by value.
 * All keys of one partition start with its {@link #encodePartitionPrefix partition prefix}, and no
 * other key does.
 *
 * <p>Stateless and thread-safe. Encoders take values that are already valid DynamoDB key values
 * ({@link Key} checks them); decoders accept only what the encoders write and report anything else as a
 * {@link CorruptionException} naming the file and offset they were given.
 */
public final class KeyEncoding {
    /** Version of the layout described in {@code FORMAT.md}; bumped on any change to it. */
    public static final int FORMAT_VERSION = 1;
    /** Bytes of the table id at the start of every key. */
    public static final int TABLE_ID_BYTES = 4;
    /** The file named by {@link CorruptionException}s of the decoders that are not given one. */
    public static final String UNKNOWN_FILE = "<key>";

    static final int TAG_B = 0x01;
    static final int TAG_S = 0x02;
    private static final int ESCAPE = 0x00;
    private static final int ESCAPED_ZERO = 0xFF;
    private static final int TERMINATOR = 0x01;

    private KeyEncoding() {
    }

    /** A key decoded by {@link #decodeKey}: the table id, the partition key, and the sort key or null. */
    public record DecodedKey(int tableId, AttributeValue partitionKey, AttributeValue sortKey) {
    }

    /**
     * The component of one key value: its type byte and payload. Components of values of one type sort
     * (unsigned bytewise) as DynamoDB orders the values, and none is a proper prefix of another. Empty
     * strings and binaries are encoded too (they order before every other value), although keys may not
     * hold them.
     *
     * @throws ValidationException if {@code value} is not an S, N or B
     */
    public static byte[] encodeValue(AttributeValue value) {
        ByteOut out = new ByteOut(16);
        appendValue(value, out);
        return out.toByteArray();
    }

    /**
     * The prefix shared by every key of partition {@code partitionKey} of table {@code tableId}, and by
     * no other key: the table id and the partition key's component.
     *
     * @throws ValidationException if {@code partitionKey} is not a non-empty S, N or B, or the table id
     *                             is negative
     */
    public static byte[] encodePartitionPrefix(int tableId, AttributeValue partitionKey) {
        return encodeKey(tableId, partitionKey, null);
    }

    /**
     * The key of an item: {@code tableId | partitionKey | sortKey}, or without a sort key if
     * {@code sortKey} is null (a table without one).
     *
     * @throws ValidationException if a key value is not a non-empty S, N or B, or the table id is negative
     */
    public static byte[] encodeKey(int tableId, AttributeValue partitionKey, AttributeValue sortKey) {
        if (tableId < 0) {
            throw new ValidationException("negative table id " + tableId);
        }
        ByteOut out = new ByteOut(64);
        out.writeIntBigEndian(tableId);
        appendKeyValue(partitionKey, "partition key", out);
        if (sortKey != null) {
            appendKeyValue(sortKey, "sort key", out);
        }
        return out.toByteArray();
    }

    /**
     * The key of an index entry: {@code keyspace | indexPartitionKey | indexSortKey? | basePartitionKey |
     * baseSortKey?}. Entries of one index partition key share {@link #encodePartitionPrefix} of it, ordered by
     * the index sort key and then by the base key, so that items with equal index keys stay distinct.
     */
    public static byte[] encodeIndexKey(int keyspace, AttributeValue indexPartitionKey, AttributeValue indexSortKey,
                                        Key baseKey) {
        ByteOut out = new ByteOut(96);
        out.writeIntBigEndian(keyspace);
        appendKeyValue(indexPartitionKey, "index partition key", out);
        if (indexSortKey != null) {
            appendKeyValue(indexSortKey, "index sort key", out);
        }
        appendKeyValue(baseKey.partitionKey(), "partition key", out);
        if (baseKey.sortKey() != null) {
            appendKeyValue(baseKey.sortKey(), "sort key", out);
        }
        return out.toByteArray();
    }

    /** {@link #encodeKey(int, AttributeValue, AttributeValue)} of {@code key}'s values. */
    public static byte[] encodeKey(int tableId, Key key) {
        return encodeKey(tableId, key.partitionKey(), key.sortKey());
    }

    /**
     * The prefix of exactly those keys of one partition whose sort key (S or B) begins with
     * {@code sortKeyPrefix} ({@code begins_with}): the sort key's component without its terminator.
     * Escaping works byte by byte, so the escaped prefix is a prefix of the escaped value exactly when
     * the value begins with the prefix. An empty {@code sortKeyPrefix} gives the sort-key type byte after
     * the partition prefix, which every key of the partition starts with.
     *
     * @throws ValidationException if {@code sortKeyPrefix} is not an S or B, or the partition key is invalid
     */
    public static byte[] encodeSortKeyPrefix(int tableId, AttributeValue partitionKey, AttributeValue sortKeyPrefix) {
        byte[] partition = encodePartitionPrefix(tableId, partitionKey);
        ByteOut out = new ByteOut(partition.length + 32);
        out.write(partition);
        byte[] raw = rawBytes(sortKeyPrefix, "begins_with prefix");
        out.write(sortKeyPrefix instanceof AttributeValue.S ? TAG_S : TAG_B);
        appendEscaped(raw, out);
        return out.toByteArray();
    }

    /** {@link #decodeKey(byte[], int, int, Type, Type, String, long)} of a whole array, naming no file. */
    public static DecodedKey decodeKey(byte[] key, Type partitionKeyType, Type sortKeyType) {
        return decodeKey(key, 0, key.length, partitionKeyType, sortKeyType, UNKNOWN_FILE, 0);
    }

    /**
     * Decodes the key in {@code buf[offset, offset + length)}, which must be exactly one key of a table
     * whose partition key has type {@code partitionKeyType} and whose sort key has type
     * {@code sortKeyType} (null: no sort key).
     *
     * @param file       named by a {@link CorruptionException}, as is {@code fileOffset} plus the position
     *                   within the key of what is wrong
     * @throws CorruptionException if the bytes are not such a key as {@link #encodeKey} writes
     * @throws IllegalArgumentException if a type is not S, N or B, or the range is outside {@code buf}
     */
    public static DecodedKey decodeKey(byte[] buf, int offset, int length, Type partitionKeyType, Type sortKeyType,
                                       String file, long fileOffset) {
        requireKeyType(partitionKeyType);
        if (sortKeyType != null) {
            requireKeyType(sortKeyType);
        }
        ByteIn in = new ByteIn(buf, offset, length, file, fileOffset);
        int tableId = readTableId(in);
        AttributeValue pk = readKeyValue(in, partitionKeyType, "partition key");
        AttributeValue sk = sortKeyType == null ? null : readKeyValue(in, sortKeyType, "sort key");
        if (!in.atEnd()) {
            throw in.corrupt(in.position(), in.remaining() + " bytes after the end of the key");
        }
        return new DecodedKey(tableId, pk, sk);
    }

    /**
     * The length of the partition prefix at the start of {@code key} (table id and partition-key
     * component), found without knowing the key schema: the prefix a table's bloom filter indexes. The
     * rest of the key is not looked at.
     *
     * @throws CorruptionException if {@code key} does not start with a table id and a well-formed component
     */
    public static int partitionPrefixLength(byte[] key) {
        int plain = plainPartitionPrefixLength(key);
        return plain >= 0 ? plain : decodedPartitionPrefixLength(key);
    }

    /** {@link #partitionPrefixLength} by decoding the table id and the component (what it falls back to). */
    static int decodedPartitionPrefixLength(byte[] key) {
        ByteIn in = new ByteIn(key, 0, key.length, UNKNOWN_FILE, 0);
        readTableId(in);
        readValue(in);
        return in.position();
    }

    /**
     * {@link #partitionPrefixLength} without decoding, for the common key whose partition key is a string of ASCII or
     * a binary, neither holding a zero byte: every write and every replayed log record routes by it, and decoding
     * the value (a string built, then dropped) cost a tenth of replaying the log. Such a component is well-formed
     * exactly when its terminator comes (ASCII is valid UTF-8), so the answer is the one decoding gives. Returns -1
     * for anything else (an escape, a byte past ASCII in a string, a number, no terminator, a negative table id):
     * the caller decodes, and fails as decoding does.
     */
    private static int plainPartitionPrefixLength(byte[] key) {
        if (key.length < TABLE_ID_BYTES + 3 || key[0] < 0) {
            return -1;
        }
        int tag = key[TABLE_ID_BYTES];
        if (tag != TAG_S && tag != TAG_B) {
            return -1;
        }
        int highest = tag == TAG_S ? 0x7F : 0xFF; // a string's bytes must be ASCII; a binary's may be anything
        for (int i = TABLE_ID_BYTES + 1; i < key.length; i++) {
            int b = key[i] & 0xFF;
            if (b == ESCAPE) {
                return i + 1 < key.length && key[i + 1] == TERMINATOR ? i + 2 : -1;
            }
            if (b > highest) {
                return -1;
            }
        }
        return -1;
    }

    /**
     * Decodes {@code key} without its schema, as its type bytes allow (FORMAT.md: "tools can print keys"): the
     * table (or index keyspace) id and every component, whatever their number — a table's key has one or two, an
     * index entry's up to four. For tools; {@link #decodeKey} is what reads a key of a known table.
     *
     * @throws CorruptionException if {@code key} is not a table id followed by well-formed components
     */
    public static Components decodeComponents(byte[] key) {
        ByteIn in = new ByteIn(key, 0, key.length, UNKNOWN_FILE, 0);
        int tableId = readTableId(in);
        List<AttributeValue> components = new ArrayList<>();
        while (!in.atEnd()) {
            components.add(readValue(in));
        }
        return new Components(tableId, List.copyOf(components));
    }

    /** A key read without its schema ({@link #decodeComponents}): its table or keyspace id and its values. */
    public record Components(int tableId, List<AttributeValue> values) {
    }

    /**
     * Decodes one component that fills {@code component} exactly (as {@link #encodeValue} writes it),
     * of whichever type its type byte names. Empty strings and binaries are accepted.
     *
     * @throws CorruptionException if it is not exactly one well-formed component
     */
    public static AttributeValue decodeValue(byte[] component) {
        ByteIn in = new ByteIn(component, 0, component.length, UNKNOWN_FILE, 0);
        AttributeValue v = readValue(in);
        if (!in.atEnd()) {
            throw in.corrupt(in.position(), in.remaining() + " bytes after the end of the value");
        }
        return v;
    }

    // ---- encoding ----

    private static void appendKeyValue(AttributeValue value, String what, ByteOut out) {
        if (value == null) {
            throw new ValidationException("the " + what + " is missing");
        }
        if (value instanceof AttributeValue.S s && s.value().isEmpty()
                || value instanceof AttributeValue.B b && b.buffer().remaining() == 0) {
            throw new ValidationException("the " + what + " must not be empty");
        }
        appendValue(value, out);
    }

    static void appendValue(AttributeValue value, ByteOut out) {
        if (value instanceof AttributeValue.N n) {
            NumberEncoding.encode(n.value(), out);
            return;
        }
        byte[] raw = rawBytes(value, "key value");
        out.write(value instanceof AttributeValue.S ? TAG_S : TAG_B);
        appendEscaped(raw, out);
        out.write(ESCAPE);
        out.write(TERMINATOR);
    }

    private static byte[] rawBytes(AttributeValue value, String what) {
        if (value instanceof AttributeValue.S s) {
            return s.value().getBytes(StandardCharsets.UTF_8);
        }
        if (value instanceof AttributeValue.B b) {
            ByteBuffer buffer = b.buffer();
            byte[] raw = new byte[buffer.remaining()];
            buffer.get(raw);
            return raw;
        }
        throw new ValidationException("a " + what + " must be of type S" + (what.equals("key value") ? ", N" : "")
                + " or B, not " + (value == null ? "missing" : value.type()));
    }

    private static void appendEscaped(byte[] raw, ByteOut out) {
        for (byte b : raw) {
            out.write(b);
            if (b == ESCAPE) {
                out.write(ESCAPED_ZERO);
            }
        }
    }

    // ---- decoding ----

    private static void requireKeyType(Type type) {
        if (type != Type.S && type != Type.N && type != Type.B) {
            throw new IllegalArgumentException("a key attribute type must be S, N or B, not " + type);
        }
    }

    private static int readTableId(ByteIn in) {
        int at = in.position();
        int id = in.u8() << 24 | in.u8() << 16 | in.u8() << 8 | in.u8();
        if (id < 0) {
            throw in.corrupt(at, "negative table id " + id);
        }
        return id;
    }

    private static AttributeValue readKeyValue(ByteIn in, Type type, String what) {
        int at = in.position();
        AttributeValue v = readValue(in);
        if (v.type() != type) {
            throw in.corrupt(at, "the " + what + " is of type " + v.type() + ", the schema says " + type);
        }
        if (v instanceof AttributeValue.S s && s.value().isEmpty()
                || v instanceof AttributeValue.B b && b.buffer().remaining() == 0) {
            throw in.corrupt(at, "the " + what + " is empty");
        }
        return v;
    }

    static AttributeValue readValue(ByteIn in) {
        int at = in.position();
        int tag = in.peek();
        switch (tag) {
            case TAG_S: {
                in.u8();
                byte[] raw = readEscaped(in);
                return new AttributeValue.S(in.utf8(raw, 0, raw.length, at));
            }
            case TAG_B:
                in.u8();
                return new AttributeValue.B(readEscaped(in));
            case NumberEncoding.TAG_NEGATIVE:
            case NumberEncoding.TAG_ZERO:
            case NumberEncoding.TAG_POSITIVE:
                return new AttributeValue.N(NumberEncoding.decode(in));
            default:
                throw in.corrupt(at, "unknown key type byte 0x" + Integer.toHexString(tag));
        }
    }

    private static byte[] readEscaped(ByteIn in) {
        ByteOut raw = new ByteOut(Math.min(in.remaining(), 64));
        while (true) {
            int at = in.position();
            int b = in.u8();
            if (b != ESCAPE) {
                raw.write(b);
                continue;
            }
            int next = in.u8();
            if (next == TERMINATOR) {
                return raw.toByteArray();
            }
            if (next != ESCAPED_ZERO) {
                throw in.corrupt(at, "escape byte 00 followed by 0x" + Integer.toHexString(next)
                        + ", expected FF or the terminator 01");
            }
            raw.write(ESCAPE);
        }
    }
}
