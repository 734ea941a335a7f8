package dev.lacuna;

import java.util.Objects;

/**
 * A label on a table: a key and a value, both case-sensitive ({@link Database#tagResource}). The rules are
 * DynamoDB's and are checked when a tag is applied, not here: a key of 1 to 128 characters, a value of 0 to
 * 256, both of Unicode letters, digits, white space and {@code _ . : / = + - @}; keys starting with
 * {@code aws:} are reserved.
 *
 * @param key   the tag's key
 * @param value the tag's value (may be empty, never null)
 */
public record Tag(String key, String value) {
    /** Checks that neither part is null. */
    public Tag {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
    }
}
