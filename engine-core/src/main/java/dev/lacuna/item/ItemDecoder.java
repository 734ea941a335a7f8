package dev.lacuna.item;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import dev.lacuna.ValidationException;
import dev.lacuna.base.CheckedNames;
import dev.lacuna.base.Varints;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The decoding half of {@link ItemCodec}. Every count and length is checked against the bytes left
 * before anything is allocated, recursion stops at {@link ItemCodec#MAX_DEPTH}, and every value is
 * re-validated (empty or duplicated sets, duplicate names) before it is built, so malformed input can
 * only end in a {@link dev.lacuna.storage.CorruptionException}.
 *
 * <p>It also adds up the item's DynamoDB size ({@link ItemSize}) from the lengths it reads, so a query page,
 * which must stop at 1 MB of items, does not walk every decoded item a second time to measure it.
 * {@code ItemCodecTest} holds the two to the same figure on random items.
 */
final class ItemDecoder {
    private final ByteIn in;
    /** Names decoded before, by their bytes, or null. */
    private final NameCache names;
    /** The DynamoDB size of what has been read so far. */
    private long size;

    private ItemDecoder(ByteIn in, NameCache names) {
        this.in = in;
        this.names = names;
    }

    static Item decode(ByteIn in) {
        return new ItemDecoder(in, null).item();
    }

    /** Decodes the item and returns it with its {@link ItemSize#of} size (a page's items: {@link #pageItem}). */
    static ItemCodec.Sized decodeSized(ByteIn in) {
        ItemDecoder decoder = new ItemDecoder(in, null);
        Item item = decoder.item();
        return new ItemCodec.Sized(item, decoder.size);
    }

    /**
     * A decoder for the items of one page, which {@link #pageItem} reuses item after item, with its reader: a
     * page of 40 items made 40 decoders, readers and results.
     */
    static ItemDecoder forPage(NameCache names) {
        return new ItemDecoder(new ByteIn(new byte[0], 0, 0, ItemCodec.UNKNOWN_FILE, 0), names);
    }

    /** Decodes the item that fills {@code bytes}; its size is {@link #size()} until the next call. */
    Item pageItem(byte[] bytes) {
        in.reset(bytes);
        size = 0;
        return item();
    }

    /** The DynamoDB size of the item {@link #pageItem} decoded last. */
    long size() {
        return size;
    }

    private Item item() {
        int versionAt = in.position();
        int version = in.u8();
        if (version != ItemCodec.FORMAT_VERSION) {
            throw in.corrupt(versionAt, "unknown item format version " + version);
        }
        // an attribute is at least a name length, one byte of name and a type byte
        int count = in.length("attribute count", 3);
        // The items of a page mostly have the last one's names in its order: while each name is the very String
        // the cache gave the last item at its position, the item takes that item's names whole, with no hash,
        // look-up or store per name; the last item's names were distinct, so these are.
        CheckedNames.Shape shape = names == null ? null : names.shape();
        boolean onShape = shape != null && shape.size() == count;
        CheckedNames<AttributeValue> attributes = onShape ? new CheckedNames<>(shape) : new CheckedNames<>(count);
        for (int i = 0; i < count; i++) {
            int nameAt = in.position();
            int nameBytes = in.length("attribute name length", 1);
            if (nameBytes > ItemCodec.MAX_NAME_BYTES) {
                throw in.corrupt(nameAt, "attribute name of " + nameBytes + " bytes, more than an item can have");
            }
            String name = name(i, nameBytes);
            if (name.isEmpty()) {
                throw in.corrupt(nameAt, "empty attribute name");
            }
            size += nameBytes;
            if (onShape) {
                if (name == shape.name(i)) {
                    readOnShape(attributes, i);
                    continue;
                }
                onShape = false;
                attributes.leaveShape();
            }
            // one hash look-up, not a containsKey and then a put: a name seen twice is corrupt either way
            if (attributes.put(name, readAttribute(i)) != null) {
                throw in.corrupt(nameAt, "attribute " + name + " appears twice");
            }
        }
        if (!in.atEnd()) {
            throw in.corrupt(in.position(), in.remaining() + " bytes after the end of the item");
        }
        if (names != null && !onShape) {
            names.shape(attributes.shareNames());
        }
        try {
            return Item.of(attributes);
        } catch (ValidationException e) {
            throw in.corrupt(versionAt, "invalid item: " + e.getMessage());
        }
    }

    /**
     * Puts the value of attribute {@code i} of an item on the last one's shape. A string whose position varies
     * from item to item (an id, a title, a timestamp) and which is ASCII, and a number other than zero, are checked
     * and left encoded, to be made when read: a page's reader mostly reads a few attributes of each item, and a
     * string is a copy, a {@code String} and a value, a number a {@code BigDecimal} and a value. An ASCII string
     * is valid UTF-8 and well-formed Unicode, and a number {@link NumberEncoding#skip} accepts decodes, so making
     * either later cannot fail; anything else is decoded now, so that damaged bytes are found here as before.
     */
    private void readOnShape(CheckedNames<AttributeValue> attributes, int i) {
        int tagAt = in.position();
        int tag = in.peek();
        if (tag == ItemCodec.TAG_N) {
            in.u8();
            int at = in.position();
            if (NumberEncoding.skip(in)) {
                size++;
                attributes.putNext(ZERO);
            } else {
                size += in.position() - at - 1; // as number() counts it
                attributes.putNextDeferred(LEFT_ENCODED, in.array(), tagAt);
            }
            return;
        }
        if (tag != ItemCodec.TAG_S || !names.varies(i)) {
            attributes.putNext(readAttribute(i));
            return;
        }
        in.u8();
        int bytes = in.length("string length", 1);
        size += bytes;
        int at = in.skip(bytes);
        byte[] b = in.array();
        if (ascii(b, at, bytes)) {
            attributes.putNextDeferred(LEFT_ENCODED, b, tagAt);
        } else {
            attributes.putNext(stringValue(b, at, bytes));
        }
    }

    /**
     * Makes a value left encoded from its type byte on: a string from its length (a varint32 read once already)
     * and its bytes, which {@link #ascii} checked and which are their own Latin-1 characters; a number from its
     * encoding, which {@link NumberEncoding#skip} checked.
     */
    private static final CheckedNames.Deferred<AttributeValue> LEFT_ENCODED = (b, offset) -> {
        if (b[offset] == ItemCodec.TAG_N) {
            return new AttributeValue.N(NumberEncoding.decode(
                    new ByteIn(b, offset + 1, b.length - offset - 1, ItemCodec.UNKNOWN_FILE, 0)));
        }
        long r = Varints.decode32(b, offset + 1, b.length);
        return new AttributeValue.S(new String(b, (int) (r >>> 32), (int) r, StandardCharsets.ISO_8859_1));
    };

    private static final AttributeValue ZERO = new AttributeValue.N(BigDecimal.ZERO);

    /** Whether {@code b[offset, offset + n)} are all below 0x80: 8 at a time, the last 8 overlapping. */
    static boolean ascii(byte[] b, int offset, int n) {
        if (n >= 8) {
            long or = 0;
            int last = offset + n - 8;
            for (int j = offset; j < last; j += 8) {
                or |= (long) NameCache.LONGS.get(b, j);
            }
            return ((or | (long) NameCache.LONGS.get(b, last)) & 0x8080808080808080L) == 0;
        }
        int or = 0;
        for (int j = offset; j < offset + n; j++) {
            or |= b[j];
        }
        return or >= 0;
    }

    /** A string value of {@code n} bytes at {@code at}, decoded strictly. */
    private AttributeValue stringValue(byte[] b, int at, int n) {
        String string = in.utf8(b, at, n, at);
        try {
            return new AttributeValue.S(string);
        } catch (ValidationException e) {
            throw in.corrupt(at, "invalid value: " + e.getMessage()); // as readValue reports it
        }
    }

    /** The value of attribute {@code i}: a string the last item had there too is taken from the cache. */
    private AttributeValue readAttribute(int i) {
        if (names == null || in.peek() != ItemCodec.TAG_S) {
            return readValue(1);
        }
        in.u8();
        int bytes = in.length("string length", 1);
        size += bytes;
        int at = in.skip(bytes);
        byte[] b = in.array();
        AttributeValue value = names.value(i, b, at, bytes);
        if (value == null) {
            value = stringValue(b, at, bytes);
            names.putValue(i, b, at, bytes, value);
        }
        return value;
    }

    private AttributeValue readValue(int level) {
        int at = in.position();
        int tag = in.u8();
        try {
            switch (tag) {
                case ItemCodec.TAG_S:
                    return new AttributeValue.S(string());
                case ItemCodec.TAG_N:
                    return new AttributeValue.N(number());
                case ItemCodec.TAG_B:
                    return new AttributeValue.B(binary());
                case ItemCodec.TAG_FALSE:
                    size++;
                    return new AttributeValue.Bool(false);
                case ItemCodec.TAG_TRUE:
                    size++;
                    return new AttributeValue.Bool(true);
                case ItemCodec.TAG_NULL:
                    size++;
                    return new AttributeValue.Null();
                case ItemCodec.TAG_L:
                    return readList(at, level);
                case ItemCodec.TAG_M:
                    return readMap(at, level);
                case ItemCodec.TAG_SS:
                case ItemCodec.TAG_NS:
                case ItemCodec.TAG_BS:
                    return readSet(at, tag);
                default:
                    throw in.corrupt(at, "unknown value type byte 0x" + Integer.toHexString(tag));
            }
        } catch (ValidationException e) {
            // the checks below should leave nothing for the constructors to refuse; if they do, it is
            // still damaged data, not a bad request
            throw in.corrupt(at, "invalid value: " + e.getMessage());
        }
    }

    /** The next {@code n} bytes as the name of attribute {@code i}: from the cache if the last item had it there. */
    private String name(int i, int n) {
        if (names == null) {
            return in.utf8(n);
        }
        int at = in.skip(n);
        byte[] b = in.array();
        String name = names.get(i, b, at, n);
        if (name == null) {
            name = in.utf8(b, at, n, at);
            names.put(i, b, at, n, name);
        }
        return name;
    }

    /** A string's UTF-8 bytes count toward the size one for one. */
    private String string() {
        int bytes = in.length("string length", 1);
        size += bytes;
        return in.utf8(bytes);
    }

    private byte[] binary() {
        int bytes = in.length("binary length", 1);
        size += bytes;
        return in.bytes(bytes);
    }

    /**
     * A number costs one byte per two significant digits, rounded up, plus one ({@link ItemSize#number}): its
     * encoding is a sign byte, an exponent byte and one byte per two significant digits (zero is one byte).
     */
    private BigDecimal number() {
        int at = in.position();
        BigDecimal value = NumberEncoding.decode(in);
        size += value.signum() == 0 ? 1 : in.position() - at - 1;
        return value;
    }

    private AttributeValue readList(int at, int level) {
        int count = in.length("list length", 1);
        checkDepth(at, count, level);
        size += 3 + count; // the list's overhead and one byte per element
        List<AttributeValue> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(readValue(level + 1));
        }
        return new AttributeValue.L(values);
    }

    private AttributeValue readMap(int at, int level) {
        int count = in.length("map size", 2);
        checkDepth(at, count, level);
        size += 3 + count; // the map's overhead and one byte per element
        Map<String, AttributeValue> values = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            int nameAt = in.position();
            int nameBytes = in.length("string length", 1);
            size += nameBytes;
            String name = name(i, nameBytes);
            if (values.put(name, readValue(level + 1)) != null) {
                throw in.corrupt(nameAt, "map key " + name + " appears twice");
            }
        }
        return new AttributeValue.M(values);
    }

    private void checkDepth(int at, int count, int level) {
        if (count > 0 && level >= ItemCodec.MAX_DEPTH) {
            throw in.corrupt(at, "values nested deeper than " + ItemCodec.MAX_DEPTH + " levels");
        }
    }

    private AttributeValue readSet(int at, int tag) {
        int count = in.length("set size", 1);
        if (count == 0) {
            throw in.corrupt(at, "empty set");
        }
        Set<Object> elements = new LinkedHashSet<>();
        for (int i = 0; i < count; i++) {
            int elementAt = in.position();
            Object e;
            if (tag == ItemCodec.TAG_SS) {
                e = string();
            } else if (tag == ItemCodec.TAG_NS) {
                e = new AttributeValue.N(number()).value();
            } else {
                e = ByteBuffer.wrap(binary());
            }
            if (!elements.add(e)) {
                throw in.corrupt(elementAt, "set element appears twice");
            }
        }
        return tag == ItemCodec.TAG_SS ? new AttributeValue.SS(cast(elements))
                : tag == ItemCodec.TAG_NS ? new AttributeValue.NS(ItemDecoder.<BigDecimal>cast(elements))
                : new AttributeValue.BS(ItemDecoder.<ByteBuffer>cast(elements));
    }

    @SuppressWarnings("unchecked")
    private static <T> Set<T> cast(Set<Object> set) {
        return (Set<T>) (Set<?>) set;
    }
}
