package dev.lacuna;

import dev.lacuna.base.Utf8;
import java.util.Objects;

/**
 * A key attribute of a table or index: its name and its type, which must be {@code S}, {@code N} or
 * {@code B}.
 */
public record KeyAttribute(String name, AttributeValue.Type type) {
    /** Checks the name and the type. */
    public KeyAttribute {
        Item.checkName(name);
        if (Utf8.length(name) > 255) {
            throw new ValidationException("key attribute name must be 1 to 255 bytes: "
                    + Utf8.length(name));
        }
        Objects.requireNonNull(type, "type");
        if (type != AttributeValue.Type.S && type != AttributeValue.Type.N && type != AttributeValue.Type.B) {
            throw new ValidationException("key attribute " + name + " has type " + type
                    + "; a key attribute must be S, N or B");
        }
    }

    /** A string key attribute. */
    public static KeyAttribute s(String name) {
        return new KeyAttribute(name, AttributeValue.Type.S);
    }

    /** A number key attribute. */
    public static KeyAttribute n(String name) {
        return new KeyAttribute(name, AttributeValue.Type.N);
    }

    /** A binary key attribute. */
    public static KeyAttribute b(String name) {
        return new KeyAttribute(name, AttributeValue.Type.B);
    }
}
