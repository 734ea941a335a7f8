package dev.lacuna;

import dev.lacuna.base.Utf8;
import dev.lacuna.base.CheckedNames;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An item: attribute names mapped to {@link AttributeValue}s, in the order they were given. Immutable and
 * thread-safe. Equality is by content, ignoring attribute order (DynamoDB items are unordered): two items
 * are equal when they hold the same names with equal values. {@link #toString()} is DynamoDB JSON.
 *
 * <p>Attribute names are non-empty, well-formed Unicode strings; building an item with an empty name or
 * a null name or value throws {@link ValidationException}. The item size limit and key attributes are not
 * checked here: that is the table's job when the item is written.
 */
public final class Item {
    private static final Item EMPTY = new Item(new LinkedHashMap<>());

    private final Map<String, AttributeValue> attributes;

    /** @param attributes a map no one else holds; the item never changes it */
    private Item(Map<String, AttributeValue> attributes) {
        this.attributes = attributes instanceof CheckedNames<AttributeValue> decoded ? decoded.freeze()
                : Collections.unmodifiableMap(attributes);
    }

    /** The item without attributes. */
    public static Item empty() {
        return EMPTY;
    }

    /**
     * An item holding a copy of {@code attributes}, in their iteration order.
     *
     * @throws ValidationException if a name is null, empty or not valid Unicode, or a value is null
     */
    public static Item of(Map<String, AttributeValue> attributes) {
        if (attributes instanceof CheckedNames<AttributeValue> decoded) {
            return new Item(decoded); // checked as it was decoded, and no one else holds it
        }
        LinkedHashMap<String, AttributeValue> copy = new LinkedHashMap<>();
        for (Map.Entry<String, AttributeValue> e : attributes.entrySet()) {
            copy.put(checkName(e.getKey()), checkValue(e.getKey(), e.getValue()));
        }
        return new Item(copy);
    }

    /** A builder for an item, attributes in the order they are added. */
    public static Builder builder() {
        return new Builder();
    }

    /** The value of attribute {@code name}, or null if the item does not have it. */
    public AttributeValue get(String name) {
        return attributes.get(name);
    }

    /**
     * The string of attribute {@code name}, an {@code S}: no {@code instanceof} needed. Each typed getter below
     * throws the same way when the attribute is not there or not of its type; check {@link #has} first for an
     * optional attribute.
     *
     * @throws AttributeTypeException if the item has no attribute {@code name}, or it is not an {@code S}
     */
    public String getString(String name) {
        return typed(name, AttributeValue.Type.S).asString();
    }

    /**
     * The number of attribute {@code name}, an {@code N}, exact.
     *
     * @throws AttributeTypeException if the attribute is absent or not an {@code N}
     */
    public BigDecimal getNumber(String name) {
        return typed(name, AttributeValue.Type.N).asNumber();
    }

    /**
     * The number of attribute {@code name}, an {@code N}, as a {@code long}.
     *
     * @throws AttributeTypeException if the attribute is absent, not an {@code N}, or not a whole number in the
     *                                range of a {@code long}
     */
    public long getLong(String name) {
        return TypedAccess.exactLong(name, typed(name, AttributeValue.Type.N));
    }

    /**
     * The value of attribute {@code name}, a {@code BOOL}.
     *
     * @throws AttributeTypeException if the attribute is absent or not a {@code BOOL}
     */
    public boolean getBoolean(String name) {
        return typed(name, AttributeValue.Type.BOOL).asBoolean();
    }

    /**
     * A copy of the bytes of attribute {@code name}, a {@code B}.
     *
     * @throws AttributeTypeException if the attribute is absent or not a {@code B}
     */
    public byte[] getBinary(String name) {
        return typed(name, AttributeValue.Type.B).asBinary();
    }

    /**
     * The elements of attribute {@code name}, an {@code L}; read each with {@link AttributeValue}'s {@code as}
     * methods.
     *
     * @throws AttributeTypeException if the attribute is absent or not an {@code L}
     */
    public List<AttributeValue> getList(String name) {
        return typed(name, AttributeValue.Type.L).asList();
    }

    /**
     * The entries of attribute {@code name}, an {@code M}.
     *
     * @throws AttributeTypeException if the attribute is absent or not an {@code M}
     */
    public Map<String, AttributeValue> getMap(String name) {
        return typed(name, AttributeValue.Type.M).asMap();
    }

    /**
     * The strings of attribute {@code name}, an {@code SS}.
     *
     * @throws AttributeTypeException if the attribute is absent or not an {@code SS}
     */
    public Set<String> getStringSet(String name) {
        return typed(name, AttributeValue.Type.SS).asStringSet();
    }

    /**
     * The numbers of attribute {@code name}, an {@code NS}.
     *
     * @throws AttributeTypeException if the attribute is absent or not an {@code NS}
     */
    public Set<BigDecimal> getNumberSet(String name) {
        return typed(name, AttributeValue.Type.NS).asNumberSet();
    }

    /**
     * The binaries of attribute {@code name}, a {@code BS}, as read-only buffers.
     *
     * @throws AttributeTypeException if the attribute is absent or not a {@code BS}
     */
    public Set<ByteBuffer> getBinarySet(String name) {
        return typed(name, AttributeValue.Type.BS).asBinarySet();
    }

    /**
     * Whether attribute {@code name} is the {@code NULL} value.
     *
     * @throws AttributeTypeException if the item has no attribute {@code name}
     */
    public boolean isNull(String name) {
        AttributeValue v = attributes.get(name);
        if (v == null) {
            throw TypedAccess.absent(name, AttributeValue.Type.NULL);
        }
        return v.isNull();
    }

    private AttributeValue typed(String name, AttributeValue.Type type) {
        AttributeValue v = attributes.get(name);
        if (v == null) {
            throw TypedAccess.absent(name, type);
        }
        if (v.type() != type) {
            throw TypedAccess.mismatch(name, type, v);
        }
        return v;
    }

    /** Whether the item has attribute {@code name}. */
    public boolean has(String name) {
        return attributes.containsKey(name);
    }

    /** The attributes, in order; unmodifiable. */
    public Map<String, AttributeValue> attributes() {
        return attributes;
    }

    /** Number of attributes. */
    public int size() {
        return attributes.size();
    }

    /** Whether the item has no attributes. */
    public boolean isEmpty() {
        return attributes.isEmpty();
    }

    /**
     * This item with attribute {@code name} set to {@code value}: replaced in place if present, otherwise
     * added last. This item is unchanged.
     */
    public Item with(String name, AttributeValue value) {
        LinkedHashMap<String, AttributeValue> copy = new LinkedHashMap<>(attributes);
        copy.put(checkName(name), checkValue(name, value));
        return new Item(copy);
    }

    /** This item without attribute {@code name} (the same item if it has none). This item is unchanged. */
    public Item without(String name) {
        if (!attributes.containsKey(name)) {
            return this;
        }
        LinkedHashMap<String, AttributeValue> copy = new LinkedHashMap<>(attributes);
        copy.remove(name);
        return new Item(copy);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Item other && attributes.equals(other.attributes);
    }

    @Override
    public int hashCode() {
        return attributes.hashCode();
    }

    /** The item in DynamoDB JSON, attributes in order: {@code {"pk": {"S": "TICKET#1"}, "n": {"N": "17"}}}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        appendJson(sb, attributes);
        return sb.toString();
    }

    /** Builds an {@link Item}; not thread-safe. Adding a name again replaces its value in place. */
    public static final class Builder {
        private final LinkedHashMap<String, AttributeValue> attributes = new LinkedHashMap<>();

        private Builder() {
        }

        /** Sets attribute {@code name} to {@code value}. */
        public Builder put(String name, AttributeValue value) {
            attributes.put(checkName(name), checkValue(name, value));
            return this;
        }

        /** Sets a string attribute. */
        public Builder s(String name, String value) {
            return put(name, AttributeValue.s(value));
        }

        /** Sets a number attribute. */
        public Builder n(String name, long value) {
            return put(name, AttributeValue.n(value));
        }

        /** Sets a number attribute from DynamoDB's text form ({@code "-0.5"}, {@code "1E+10"}). */
        public Builder n(String name, String value) {
            return put(name, AttributeValue.n(value));
        }

        /** Sets a number attribute. */
        public Builder n(String name, BigDecimal value) {
            return put(name, AttributeValue.n(value));
        }

        /** Sets a binary attribute (the bytes are copied). */
        public Builder b(String name, byte[] value) {
            return put(name, AttributeValue.b(value));
        }

        /** Sets a boolean attribute. */
        public Builder bool(String name, boolean value) {
            return put(name, AttributeValue.bool(value));
        }

        /** Sets attribute {@code name} to the null value. */
        public Builder nul(String name) {
            return put(name, AttributeValue.nul());
        }

        /** The item with the attributes set so far; the builder may go on to build others. */
        public Item build() {
            return new Item(new LinkedHashMap<>(attributes));
        }
    }

    /** Longest attribute name, in UTF-8 bytes (DynamoDB: less than 64 KB). */
    static final int MAX_NAME_BYTES = 65535;

    static String checkName(String name) {
        if (name == null) {
            throw new ValidationException("an attribute name must not be null");
        }
        if (name.isEmpty()) {
            throw new ValidationException("an attribute name must not be empty");
        }
        int at = Utf8.unpairedSurrogate(name);
        if (at >= 0) {
            throw new ValidationException("attribute name is not valid Unicode: unpaired surrogate at index " + at);
        }
        if (name.length() > MAX_NAME_BYTES / 3 && Utf8.length(name) > MAX_NAME_BYTES) {
            throw new ValidationException("an attribute name must be shorter than 64 KB: "
                    + Utf8.length(name) + " bytes");
        }
        return name;
    }

    private static AttributeValue checkValue(String name, AttributeValue value) {
        if (value == null) {
            throw new ValidationException("attribute " + name + " has no value");
        }
        return value;
    }

    // ---- DynamoDB JSON, for toString (Item and Key) ----

    static void appendJson(StringBuilder sb, Map<String, AttributeValue> map) {
        sb.append('{');
        String sep = "";
        for (Map.Entry<String, AttributeValue> e : map.entrySet()) {
            sb.append(sep);
            appendString(sb, e.getKey());
            sb.append(": ");
            appendJson(sb, e.getValue());
            sep = ", ";
        }
        sb.append('}');
    }

    private static void appendJson(StringBuilder sb, AttributeValue v) {
        sb.append("{\"").append(v.type()).append("\": ");
        if (v instanceof AttributeValue.S s) {
            appendString(sb, s.value());
        } else if (v instanceof AttributeValue.N n) {
            appendString(sb, n.toString());
        } else if (v instanceof AttributeValue.B b) {
            appendString(sb, base64(b.buffer()));
        } else if (v instanceof AttributeValue.Bool b) {
            sb.append(b.value());
        } else if (v instanceof AttributeValue.Null) {
            sb.append(true);
        } else if (v instanceof AttributeValue.L l) {
            String sep = "";
            sb.append('[');
            for (AttributeValue e : l.values()) {
                sb.append(sep);
                appendJson(sb, e);
                sep = ", ";
            }
            sb.append(']');
        } else if (v instanceof AttributeValue.M m) {
            appendJson(sb, m.values());
        } else {
            Iterable<?> elements = v instanceof AttributeValue.SS ss ? ss.values()
                    : v instanceof AttributeValue.NS ns ? ns.values() : ((AttributeValue.BS) v).values();
            String sep = "";
            sb.append('[');
            for (Object e : elements) {
                sb.append(sep);
                appendString(sb, e instanceof ByteBuffer buffer ? base64(buffer)
                        : e instanceof BigDecimal d ? new AttributeValue.N(d).toString() : (String) e);
                sep = ", ";
            }
            sb.append(']');
        }
        sb.append('}');
    }

    private static String base64(ByteBuffer buffer) {
        return new String(Base64.getEncoder().encode(buffer.duplicate()).array(), StandardCharsets.US_ASCII);
    }

    private static void appendString(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }
}
