package dev.lacuna.item;

import dev.lacuna.AttributeValue;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.Item;
import dev.lacuna.ValidationException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The binary encoding of items, as stored in memtables, SSTables and the log (layout in
 * {@code FORMAT.md} beside this class, "Item codec", version {@value #FORMAT_VERSION}): a version byte,
 * the attribute count, then each attribute's length-prefixed UTF-8 name and its typed value. Stateless
 * and thread-safe.
 *
 * <p>The encoding is canonical: {@link #decode} accepts exactly the byte strings {@link #encode} writes
 * (no overlong varints, strict UTF-8, canonical numbers, no duplicate names or set elements, no trailing
 * bytes), so {@code encode(decode(b))} equals {@code b} for every {@code b} it accepts. It has no
 * checksum: the SSTable blocks and log records that hold items are checksummed. The decoder still
 * treats its input as untrusted and fails only with {@link CorruptionException}.
 */
public final class ItemCodec {
    /** Version of the layout, the first byte of every encoded item. */
    public static final int FORMAT_VERSION = 1;
    /**
     * Deepest nesting allowed, as in DynamoDB: a top-level attribute's value is at level 1, the elements
     * of a list or map at level {@code n} are at level {@code n + 1}, and no value may be deeper than 32.
     */
    public static final int MAX_DEPTH = 32;
    /** The file named by {@link CorruptionException}s of {@link #decode(byte[])}. */
    public static final String UNKNOWN_FILE = "<item>";
    /** The longest attribute name an {@link Item} can have, in UTF-8 bytes (DynamoDB: less than 64 KB). */
    static final int MAX_NAME_BYTES = 65535;

    static final int TAG_S = 0x01;
    static final int TAG_N = 0x02;
    static final int TAG_B = 0x03;
    static final int TAG_FALSE = 0x04;
    static final int TAG_TRUE = 0x05;
    static final int TAG_NULL = 0x06;
    static final int TAG_L = 0x07;
    static final int TAG_M = 0x08;
    static final int TAG_SS = 0x09;
    static final int TAG_NS = 0x0A;
    static final int TAG_BS = 0x0B;

    private ItemCodec() {
    }

    /**
     * Encodes {@code item}.
     *
     * @throws ValidationException if a value is nested deeper than {@link #MAX_DEPTH} levels
     */
    public static byte[] encode(Item item) {
        ByteOut out = new ByteOut(64);
        out.write(FORMAT_VERSION);
        out.writeVarint(item.size());
        for (Map.Entry<String, AttributeValue> e : item.attributes().entrySet()) {
            writeString(e.getKey(), out);
            writeValue(e.getValue(), 1, e.getKey(), out);
        }
        return out.toByteArray();
    }

    /**
     * Decodes an item that fills {@code bytes} exactly; a {@link CorruptionException} names
     * {@link #UNKNOWN_FILE} and the offset in {@code bytes}.
     */
    public static Item decode(byte[] bytes) {
        return decode(bytes, 0, bytes.length, UNKNOWN_FILE, 0);
    }

    /**
     * Decodes the item in {@code buf[offset, offset + length)}, which it must fill exactly.
     *
     * @param file       the file the bytes were read from, named by a {@link CorruptionException}
     * @param fileOffset offset of {@code buf[offset]} in that file: an exception reports
     *                   {@code fileOffset} plus the position in the item of the field that is wrong
     * @throws CorruptionException for any input that {@link #encode} would not have written
     * @throws IndexOutOfBoundsException if the range is not inside {@code buf} (a caller's bug)
     */
    public static Item decode(byte[] buf, int offset, int length, String file, long fileOffset) {
        return ItemDecoder.decode(new ByteIn(buf, offset, length, file, fileOffset));
    }

    /** A decoded item and its DynamoDB size ({@link ItemSize#of}), counted while it was decoded. */
    public record Sized(Item item, long size) {
    }

    /**
     * Decodes {@code bytes} as {@link #decode(byte[])} does and returns the item's {@link ItemSize#of} size
     * with it, counted from the lengths read rather than by walking the decoded item again.
     */
    public static Sized decodeSized(byte[] bytes) {
        return ItemDecoder.decodeSized(new ByteIn(bytes, 0, bytes.length, UNKNOWN_FILE, 0));
    }

    /**
     * Like {@link #decodeSized(byte[])}, taking attribute names and map keys decoded before from {@code names}
     * and keeping the new ones there: the items of one page share their names, and each is then decoded once.
     * Such an item may leave some values encoded (ASCII strings that vary from item to item, numbers) and make each
     * when it is first read, so it keeps {@code bytes} for as long as it lives; they must not change afterwards (a
     * cursor's value is its own copy, or a memtable's value, which is never written again: see
     * {@code KvCursor.value}).
     *
     * @param names the names of the items decoded before by the caller's thread, or null for none
     */
    public static Sized decodeSized(byte[] bytes, NameCache names) {
        if (names == null) {
            return decodeSized(bytes);
        }
        Item item = decodePageItem(bytes, names);
        return new Sized(item, names.lastItemSize());
    }

    /**
     * Decodes a page's item as {@link #decodeSized(byte[], NameCache)} does, with the one decoder {@code names}
     * keeps for its reader; the item's size is then {@link NameCache#lastItemSize()}.
     */
    public static Item decodePageItem(byte[] bytes, NameCache names) {
        return names.decoder().pageItem(bytes);
    }

    private static void writeValue(AttributeValue value, int level, String attribute, ByteOut out) {
        if (value instanceof AttributeValue.S s) {
            out.write(TAG_S);
            writeString(s.value(), out);
        } else if (value instanceof AttributeValue.N n) {
            out.write(TAG_N);
            NumberEncoding.encode(n.value(), out);
        } else if (value instanceof AttributeValue.B b) {
            out.write(TAG_B);
            writeBytes(b.buffer(), out);
        } else if (value instanceof AttributeValue.Bool b) {
            out.write(b.value() ? TAG_TRUE : TAG_FALSE);
        } else if (value instanceof AttributeValue.Null) {
            out.write(TAG_NULL);
        } else if (value instanceof AttributeValue.L l) {
            out.write(TAG_L);
            out.writeVarint(l.values().size());
            checkDepth(l.values().isEmpty(), level, attribute);
            for (AttributeValue e : l.values()) {
                writeValue(e, level + 1, attribute, out);
            }
        } else if (value instanceof AttributeValue.M m) {
            out.write(TAG_M);
            out.writeVarint(m.values().size());
            checkDepth(m.values().isEmpty(), level, attribute);
            for (Map.Entry<String, AttributeValue> e : m.values().entrySet()) {
                writeString(e.getKey(), out);
                writeValue(e.getValue(), level + 1, attribute, out);
            }
        } else if (value instanceof AttributeValue.SS ss) {
            out.write(TAG_SS);
            out.writeVarint(ss.values().size());
            for (String e : ss.values()) {
                writeString(e, out);
            }
        } else if (value instanceof AttributeValue.NS ns) {
            out.write(TAG_NS);
            out.writeVarint(ns.values().size());
            for (BigDecimal e : ns.values()) {
                NumberEncoding.encode(e, out);
            }
        } else {
            AttributeValue.BS bs = (AttributeValue.BS) value;
            out.write(TAG_BS);
            out.writeVarint(bs.values().size());
            for (ByteBuffer e : bs.values()) {
                writeBytes(e, out);
            }
        }
    }

    private static void checkDepth(boolean empty, int level, String attribute) {
        if (!empty && level >= MAX_DEPTH) {
            throw new ValidationException("Nesting Levels have exceeded supported limits: attribute " + attribute
                    + " holds values nested deeper than " + MAX_DEPTH + " levels");
        }
    }

    private static void writeString(String s, ByteOut out) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        out.writeVarint(utf8.length);
        out.write(utf8);
    }

    private static void writeBytes(ByteBuffer b, ByteOut out) {
        ByteBuffer view = b.duplicate(); // never move the position of a value's own buffer
        out.writeVarint(view.remaining());
        byte[] raw = new byte[view.remaining()];
        view.get(raw);
        out.write(raw);
    }
}
