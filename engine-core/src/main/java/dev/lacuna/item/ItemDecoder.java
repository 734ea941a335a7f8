package dev.lacuna.item;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import dev.lacuna.ValidationException;
import java.math.BigDecimal;
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
 */
final class ItemDecoder {
    private ItemDecoder() {
    }

    static Item decode(ByteIn in) {
        int versionAt = in.position();
        int version = in.u8();
        if (version != ItemCodec.FORMAT_VERSION) {
            throw in.corrupt(versionAt, "unknown item format version " + version);
        }
        // an attribute is at least a name length, one byte of name and a type byte
        int count = in.length("attribute count", 3);
        LinkedHashMap<String, AttributeValue> attributes = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            int nameAt = in.position();
            String name = in.utf8(in.length("attribute name length", 1));
            if (name.isEmpty()) {
                throw in.corrupt(nameAt, "empty attribute name");
            }
            if (attributes.containsKey(name)) {
                throw in.corrupt(nameAt, "attribute " + name + " appears twice");
            }
            attributes.put(name, readValue(in, 1));
        }
        if (!in.atEnd()) {
            throw in.corrupt(in.position(), in.remaining() + " bytes after the end of the item");
        }
        try {
            return Item.of(attributes);
        } catch (ValidationException e) {
            throw in.corrupt(versionAt, "invalid item: " + e.getMessage());
        }
    }

    private static AttributeValue readValue(ByteIn in, int level) {
        int at = in.position();
        int tag = in.u8();
        try {
            switch (tag) {
                case ItemCodec.TAG_S:
                    return new AttributeValue.S(in.utf8(in.length("string length", 1)));
                case ItemCodec.TAG_N:
                    return new AttributeValue.N(NumberEncoding.decode(in));
                case ItemCodec.TAG_B:
                    return new AttributeValue.B(in.bytes(in.length("binary length", 1)));
                case ItemCodec.TAG_FALSE:
                    return new AttributeValue.Bool(false);
                case ItemCodec.TAG_TRUE:
                    return new AttributeValue.Bool(true);
                case ItemCodec.TAG_NULL:
                    return new AttributeValue.Null();
                case ItemCodec.TAG_L:
                    return readList(in, at, level);
                case ItemCodec.TAG_M:
                    return readMap(in, at, level);
                case ItemCodec.TAG_SS:
                case ItemCodec.TAG_NS:
                case ItemCodec.TAG_BS:
                    return readSet(in, at, tag);
                default:
                    throw in.corrupt(at, "unknown value type byte 0x" + Integer.toHexString(tag));
            }
        } catch (ValidationException e) {
            // the checks below should leave nothing for the constructors to refuse; if they do, it is
            // still damaged data, not a bad request
            throw in.corrupt(at, "invalid value: " + e.getMessage());
        }
    }

    private static AttributeValue readList(ByteIn in, int at, int level) {
        int count = in.length("list length", 1);
        checkDepth(in, at, count, level);
        List<AttributeValue> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(readValue(in, level + 1));
        }
        return new AttributeValue.L(values);
    }

    private static AttributeValue readMap(ByteIn in, int at, int level) {
        int count = in.length("map size", 2);
        checkDepth(in, at, count, level);
        Map<String, AttributeValue> values = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            int nameAt = in.position();
            String name = in.utf8(in.length("map key length", 1));
            if (values.containsKey(name)) {
                throw in.corrupt(nameAt, "map key " + name + " appears twice");
            }
            values.put(name, readValue(in, level + 1));
        }
        return new AttributeValue.M(values);
    }

    private static void checkDepth(ByteIn in, int at, int count, int level) {
        if (count > 0 && level >= ItemCodec.MAX_DEPTH) {
            throw in.corrupt(at, "values nested deeper than " + ItemCodec.MAX_DEPTH + " levels");
        }
    }

    private static AttributeValue readSet(ByteIn in, int at, int tag) {
        int count = in.length("set size", 1);
        if (count == 0) {
            throw in.corrupt(at, "empty set");
        }
        Set<Object> elements = new LinkedHashSet<>();
        for (int i = 0; i < count; i++) {
            int elementAt = in.position();
            Object e;
            if (tag == ItemCodec.TAG_SS) {
                e = in.utf8(in.length("string length", 1));
            } else if (tag == ItemCodec.TAG_NS) {
                e = new AttributeValue.N(NumberEncoding.decode(in)).value();
            } else {
                e = ByteBuffer.wrap(in.bytes(in.length("binary length", 1)));
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
