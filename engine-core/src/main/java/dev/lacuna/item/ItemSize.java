package dev.lacuna.item;

import dev.lacuna.base.Utf8;
import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * DynamoDB's item size accounting, which the 400 KB item limit ({@link #MAX_ITEM_BYTES}) and capacity
 * units are measured in. Stateless and thread-safe.
 *
 * <p>The rules, from the DynamoDB Developer Guide, "DynamoDB item sizes and formats"
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
 * an item's size is the sum over its attributes of the UTF-8 bytes of the attribute name plus the size
 * of the value, where
 * <ul>
 *   <li>S: its UTF-8 bytes;</li>
 *   <li>N: "approximately (1 byte per two significant digits) + (1 byte)", leading and trailing zeros
 *       trimmed. Implemented as {@code ceil(digits / 2) + 1}; zero has no significant digits and costs
 *       1 byte. (DynamoDB's real encoding aligns digit pairs to the decimal point, so it can be one byte
 *       more, "up to 21 bytes"; the documented rule is what is implemented, 20 bytes at most.)</li>
 *   <li>B: its raw bytes;</li>
 *   <li>BOOL and NULL: 1 byte;</li>
 *   <li>L and M: 3 bytes of overhead, plus for each element 1 byte of overhead and its size — for a map
 *       element, the UTF-8 bytes of its name plus its value's size, as for a top-level attribute;</li>
 *   <li>SS, NS, BS: the sum of their elements' sizes as S, N, B (the guide gives no set overhead).</li>
 * </ul>
 */
public final class ItemSize {
    /** DynamoDB's item size limit: 400 KB, that is 409,600 bytes. */
    public static final int MAX_ITEM_BYTES = 400 * 1024;

    private ItemSize() {
    }

    /** The size of {@code item}: the sum of {@link #attribute} over its attributes. */
    public static long of(Item item) {
        long size = 0;
        for (Map.Entry<String, AttributeValue> e : item.attributes().entrySet()) {
            size += attribute(e.getKey(), e.getValue());
        }
        return size;
    }

    /** The size of one attribute: its name's UTF-8 bytes plus {@link #value}. */
    public static long attribute(String name, AttributeValue value) {
        return Utf8.length(name) + value(value);
    }

    /** The size of a value, without a name. */
    public static long value(AttributeValue value) {
        if (value instanceof AttributeValue.S s) {
            return Utf8.length(s.value());
        }
        if (value instanceof AttributeValue.N n) {
            return number(n.value());
        }
        if (value instanceof AttributeValue.B b) {
            return b.buffer().remaining();
        }
        if (value instanceof AttributeValue.Bool || value instanceof AttributeValue.Null) {
            return 1;
        }
        if (value instanceof AttributeValue.L l) {
            long size = 3;
            for (AttributeValue e : l.values()) {
                size += 1 + value(e);
            }
            return size;
        }
        if (value instanceof AttributeValue.M m) {
            long size = 3;
            for (Map.Entry<String, AttributeValue> e : m.values().entrySet()) {
                size += 1 + attribute(e.getKey(), e.getValue());
            }
            return size;
        }
        long size = 0;
        if (value instanceof AttributeValue.SS ss) {
            for (String e : ss.values()) {
                size += Utf8.length(e);
            }
        } else if (value instanceof AttributeValue.NS ns) {
            for (BigDecimal e : ns.values()) {
                size += number(e);
            }
        } else {
            for (ByteBuffer e : ((AttributeValue.BS) value).values()) {
                size += e.remaining();
            }
        }
        return size;
    }

    /** The size of a number: one byte per two significant digits (rounded up), plus one. */
    public static int number(BigDecimal value) {
        if (value.signum() == 0) {
            return 1;
        }
        int digits = value.stripTrailingZeros().precision();
        return (digits + 1) / 2 + 1;
    }
}
