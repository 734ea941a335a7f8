package dev.lacuna.expr;

import dev.lacuna.AttributeValue;
import dev.lacuna.expr.Ast.Index;
import dev.lacuna.expr.Ast.Name;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.PathElement;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * DynamoDB's value semantics for expressions: reading a document path, ordering, {@code size}, prefixes.
 *
 * <p>Ordering exists only between two values of the same type among N (by numeric value), S (by UTF-8 bytes,
 * which is code point order) and B (by unsigned bytes); any other pair is unordered, so {@code <}, {@code <=},
 * {@code >}, {@code >=} and {@code BETWEEN} are false for it. Equality is {@code AttributeValue.equals},
 * which already compares numbers by value and sets, binaries and maps by content.
 */
final class Values {
    private Values() {
    }

    /** The value at {@code path} (a bound path) in {@code item}, or null if there is none. */
    static AttributeValue get(Map<String, AttributeValue> item, Path path) {
        List<PathElement> elements = path.elements();
        AttributeValue current = item.get(path.topLevelName());
        for (int i = 1; i < elements.size() && current != null; i++) {
            current = child(current, elements.get(i));
        }
        return current;
    }

    /** The element {@code step} selects in {@code container}, or null. */
    static AttributeValue child(AttributeValue container, PathElement step) {
        if (step instanceof Name n && container instanceof AttributeValue.M m) {
            return m.values().get(n.name());
        }
        if (step instanceof Index i && container instanceof AttributeValue.L l) {
            return i.index() < l.values().size() ? l.values().get(i.index()) : null;
        }
        return null;
    }

    /** The order of {@code a} and {@code b} (negative, zero, positive), or null if they are not ordered. */
    static Integer compare(AttributeValue a, AttributeValue b) {
        if (a instanceof AttributeValue.N x && b instanceof AttributeValue.N y) {
            return x.value().compareTo(y.value());
        }
        if (a instanceof AttributeValue.S x && b instanceof AttributeValue.S y) {
            return compareStrings(x.value(), y.value());
        }
        if (a instanceof AttributeValue.B x && b instanceof AttributeValue.B y) {
            return Arrays.compareUnsigned(x.value(), y.value());
        }
        return null;
    }

    /** Code point order, which is the order of the strings' UTF-8 bytes (unlike {@link String#compareTo}). */
    static int compareStrings(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    /**
     * {@code size(v)}: a string's length in UTF-16 code units (what DynamoDB counts: a character outside the
     * Basic Multilingual Plane counts 2), a binary's bytes, the elements of a set, list or map; null for the
     * other types, so a comparison with it is false.
     */
    static AttributeValue size(AttributeValue v) {
        long size;
        if (v instanceof AttributeValue.S s) {
            size = s.value().length();
        } else if (v instanceof AttributeValue.B b) {
            size = b.buffer().remaining();
        } else if (v instanceof AttributeValue.SS s) {
            size = s.values().size();
        } else if (v instanceof AttributeValue.NS s) {
            size = s.values().size();
        } else if (v instanceof AttributeValue.BS s) {
            size = s.values().size();
        } else if (v instanceof AttributeValue.L l) {
            size = l.values().size();
        } else if (v instanceof AttributeValue.M m) {
            size = m.values().size();
        } else {
            return null;
        }
        return new AttributeValue.N(BigDecimal.valueOf(size));
    }

    /** {@code begins_with}: a string prefix of a string, or a byte prefix of a binary. */
    static boolean beginsWith(AttributeValue value, AttributeValue prefix) {
        if (value instanceof AttributeValue.S s && prefix instanceof AttributeValue.S p) {
            return s.value().startsWith(p.value());
        }
        if (value instanceof AttributeValue.B b && prefix instanceof AttributeValue.B p) {
            byte[] bytes = b.value();
            byte[] start = p.value();
            return bytes.length >= start.length && Arrays.equals(bytes, 0, start.length, start, 0, start.length);
        }
        return false;
    }

    /**
     * {@code contains}: a substring of a string, a byte subsequence of a binary (DynamoDB treats the two alike),
     * an element of a set (of the operand's type) or of a list (any type, by equality).
     */
    static boolean contains(AttributeValue value, AttributeValue operand) {
        if (value instanceof AttributeValue.S s) {
            return operand instanceof AttributeValue.S o && s.value().contains(o.value());
        }
        if (value instanceof AttributeValue.B b) {
            return operand instanceof AttributeValue.B o && indexOf(b.value(), o.value()) >= 0;
        }
        if (value instanceof AttributeValue.SS set) {
            return operand instanceof AttributeValue.S o && set.values().contains(o.value());
        }
        if (value instanceof AttributeValue.NS set) {
            return operand instanceof AttributeValue.N o && set.values().contains(o.value());
        }
        if (value instanceof AttributeValue.BS set) {
            return operand instanceof AttributeValue.B o && set.values().contains(o.buffer());
        }
        if (value instanceof AttributeValue.L list) {
            return list.values().contains(operand);
        }
        return false;
    }

    /** Where {@code part} first occurs in {@code whole}, or -1; the empty part occurs at 0. */
    private static int indexOf(byte[] whole, byte[] part) {
        for (int i = 0; i + part.length <= whole.length; i++) {
            if (Arrays.equals(whole, i, i + part.length, part, 0, part.length)) {
                return i;
            }
        }
        return -1;
    }

    /** DynamoDB's short rendering in error messages: {@code S:abc}, {@code N:12}, {@code B:<base64>}. */
    static String describe(AttributeValue v) {
        String text;
        if (v instanceof AttributeValue.S s) {
            text = s.value();
        } else if (v instanceof AttributeValue.N n) {
            text = n.toString();
        } else if (v instanceof AttributeValue.B b) {
            text = Base64.getEncoder().encodeToString(b.value());
        } else if (v instanceof AttributeValue.Bool b) {
            text = String.valueOf(b.value());
        } else if (v instanceof AttributeValue.Null) {
            text = "true";
        } else {
            text = "…";
        }
        if (text.length() > 64) {
            text = text.substring(0, 64) + "…";
        }
        return v.type() + ":" + text;
    }
}
