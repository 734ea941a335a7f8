package dev.lacuna.base;

import java.util.LinkedHashMap;

/**
 * A map from attribute names to values whose every name has already been checked the way
 * {@code dev.lacuna.Item.of} checks a caller's names (non-empty, well-formed Unicode, at most 65,535 UTF-8
 * bytes) and that no one else holds: {@code Item.of} takes such a map as it is, without copying it and
 * checking every name again. Only the item decoder makes them; the package is not exported. A query page
 * decodes every item it returns, and the copy was a tenth of a queue read.
 *
 * @param <V> the attribute value type ({@code dev.lacuna.AttributeValue}; generic so that this base package
 *            does not depend on the API package)
 */
public final class CheckedNames<V> extends LinkedHashMap<String, V> {
    private static final long serialVersionUID = 1L;

    /** An empty map sized for {@code expected} attributes; the caller checks each name it puts. */
    public CheckedNames(int expected) {
        super(Math.max(16, (int) (expected / 0.75f) + 1));
    }
}
