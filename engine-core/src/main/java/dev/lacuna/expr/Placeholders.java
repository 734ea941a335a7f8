package dev.lacuna.expr;

import dev.lacuna.base.Utf8;
import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The expression attribute names ({@code #name} → attribute name) and values ({@code :value} →
 * {@link AttributeValue}) of one request, and which of them the request's expressions have used.
 *
 * <p>Give every expression of a request the same instance (its condition, update, projection, filter or key
 * condition), then call {@link #requireAllUsed()}: as in DynamoDB, a name or value defined but used by none
 * of them is an error. A placeholder used but not defined is an error as soon as the expression using it is
 * parsed.
 *
 * <p>Not thread-safe: it records usage, so it belongs to one request on one thread.
 */
public final class Placeholders {
    private final Map<String, String> names;
    private final Map<String, AttributeValue> values;
    private final Set<String> usedNames = new HashSet<>();
    private final Set<String> usedValues = new HashSet<>();

    private Placeholders(Map<String, String> names, Map<String, AttributeValue> values) {
        this.names = names;
        this.values = values;
    }

    /**
     * The placeholders of a request; {@code null} or empty maps mean there are none. The maps are copied.
     *
     * @throws ValidationException if a key is not a well-formed placeholder ({@code #} or {@code :} followed by
     *                             letters, digits and underscores, at most 255 bytes) or a name is empty
     */
    public static Placeholders of(Map<String, String> names, Map<String, AttributeValue> values) {
        Map<String, String> n = new LinkedHashMap<>();
        if (names != null) {
            for (Map.Entry<String, String> e : names.entrySet()) {
                String key = Objects.requireNonNull(e.getKey(), "expression attribute name key");
                String value = Objects.requireNonNull(e.getValue(), "expression attribute name value");
                checkKey("ExpressionAttributeNames", key, '#');
                if (value.isEmpty()) {
                    throw new ValidationException(
                            "ExpressionAttributeNames contains invalid value: Empty attribute name for key " + key);
                }
                if (!wellFormedUnicode(value)) {
                    throw new ValidationException("ExpressionAttributeNames contains invalid value: the name for key "
                            + key + " is not valid Unicode (an unpaired surrogate)");
                }
                n.put(key, value);
            }
        }
        Map<String, AttributeValue> v = new LinkedHashMap<>();
        if (values != null) {
            for (Map.Entry<String, AttributeValue> e : values.entrySet()) {
                String key = Objects.requireNonNull(e.getKey(), "expression attribute value key");
                checkKey("ExpressionAttributeValues", key, ':');
                v.put(key, Objects.requireNonNull(e.getValue(), "expression attribute value"));
            }
        }
        return new Placeholders(n, v);
    }

    /** No placeholders. */
    public static Placeholders none() {
        return new Placeholders(Map.of(), Map.of());
    }

    /**
     * Checks that every name and value was used by an expression given this instance.
     *
     * @throws ValidationException naming the unused keys, e.g.
     *                             {@code Value provided in ExpressionAttributeValues unused in expressions: keys: {:a, :b}}
     */
    public void requireAllUsed() {
        requireUsed("ExpressionAttributeNames", names.keySet(), usedNames);
        requireUsed("ExpressionAttributeValues", values.keySet(), usedValues);
    }

    /** The attribute name {@code placeholder} stands for; marks it used. */
    String name(String placeholder, ExpressionKind kind) {
        String name = names.get(placeholder);
        if (name == null) {
            throw kind.error("An expression attribute name used in the document path is not defined; attribute name: "
                    + placeholder);
        }
        usedNames.add(placeholder);
        return name;
    }

    /** The value {@code placeholder} stands for; marks it used. */
    AttributeValue value(String placeholder, ExpressionKind kind) {
        AttributeValue value = values.get(placeholder);
        if (value == null) {
            throw kind.error("An expression attribute value used in expression is not defined; attribute value: "
                    + placeholder);
        }
        usedValues.add(placeholder);
        return value;
    }

    private static void requireUsed(String parameter, Set<String> defined, Set<String> used) {
        if (used.containsAll(defined)) {
            return; // as nearly always: no sorted set of the unused to build
        }
        Set<String> unused = new TreeSet<>(defined);
        unused.removeAll(used);
        if (!unused.isEmpty()) {
            throw new ValidationException("Value provided in " + parameter + " unused in expressions: keys: {"
                    + String.join(", ", unused) + "}");
        }
    }

    private static boolean wellFormedUnicode(String s) {
        return Utf8.unpairedSurrogate(s) < 0;
    }

    private static void checkKey(String parameter, String key, char sigil) {
        boolean wellFormed = key.length() >= 2 && key.charAt(0) == sigil;
        for (int i = 1; wellFormed && i < key.length(); i++) {
            wellFormed = Lexer.isNameChar(key.charAt(i));
        }
        if (!wellFormed) {
            throw new ValidationException(parameter + " contains invalid key: Syntax error; key: \"" + key + "\"");
        }
        if (key.length() > ExpressionLimits.MAX_PLACEHOLDER_BYTES) {
            throw new ValidationException(parameter + " contains invalid key: The key is longer than "
                    + ExpressionLimits.MAX_PLACEHOLDER_BYTES + " bytes; key: \"" + key.substring(0, 32) + "…\"");
        }
    }
}
