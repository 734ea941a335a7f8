package dev.lacuna;

import dev.lacuna.base.Utf8;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A DynamoDB attribute value: one of ten types. Immutable and validated on construction, so an invalid
 * value (a number with more than 38 significant digits, an empty or duplicated set) cannot exist:
 * building one throws {@link ValidationException}. Equality follows DynamoDB: numbers compare by value
 * ({@code 1.0} equals {@code 1}), binaries and sets by content (sets ignore order).
 */
public sealed interface AttributeValue {
    /** The type, with DynamoDB's names (as {@code attribute_type} takes them). */
    Type type();

    /**
     * The string of an {@code S} value.
     *
     * @throws AttributeTypeException if this is another type
     */
    default String asString() {
        if (this instanceof S s) {
            return s.value();
        }
        throw TypedAccess.mismatch(null, Type.S, this);
    }

    /**
     * The number of an {@code N} value, exact.
     *
     * @throws AttributeTypeException if this is another type
     */
    default BigDecimal asNumber() {
        if (this instanceof N n) {
            return n.value();
        }
        throw TypedAccess.mismatch(null, Type.N, this);
    }

    /**
     * The number of an {@code N} value as a {@code long}, if it is a whole number in the range of one.
     *
     * @throws AttributeTypeException if this is another type, or a number with a fraction or out of range
     */
    default long asLong() {
        return TypedAccess.exactLong(null, this);
    }

    /**
     * The value of a {@code BOOL}.
     *
     * @throws AttributeTypeException if this is another type
     */
    default boolean asBoolean() {
        if (this instanceof Bool b) {
            return b.value();
        }
        throw TypedAccess.mismatch(null, Type.BOOL, this);
    }

    /**
     * A copy of the bytes of a {@code B} value.
     *
     * @throws AttributeTypeException if this is another type
     */
    default byte[] asBinary() {
        if (this instanceof B b) {
            return b.value();
        }
        throw TypedAccess.mismatch(null, Type.B, this);
    }

    /**
     * The elements of an {@code L} value, in order; unmodifiable.
     *
     * @throws AttributeTypeException if this is another type
     */
    default List<AttributeValue> asList() {
        if (this instanceof L l) {
            return l.values();
        }
        throw TypedAccess.mismatch(null, Type.L, this);
    }

    /**
     * The entries of an {@code M} value, in order; unmodifiable.
     *
     * @throws AttributeTypeException if this is another type
     */
    default Map<String, AttributeValue> asMap() {
        if (this instanceof M m) {
            return m.values();
        }
        throw TypedAccess.mismatch(null, Type.M, this);
    }

    /**
     * The strings of an {@code SS} value; unmodifiable.
     *
     * @throws AttributeTypeException if this is another type
     */
    default Set<String> asStringSet() {
        if (this instanceof SS ss) {
            return ss.values();
        }
        throw TypedAccess.mismatch(null, Type.SS, this);
    }

    /**
     * The numbers of an {@code NS} value; unmodifiable.
     *
     * @throws AttributeTypeException if this is another type
     */
    default Set<BigDecimal> asNumberSet() {
        if (this instanceof NS ns) {
            return ns.values();
        }
        throw TypedAccess.mismatch(null, Type.NS, this);
    }

    /**
     * The binaries of a {@code BS} value, as read-only buffers; unmodifiable.
     *
     * @throws AttributeTypeException if this is another type
     */
    default Set<ByteBuffer> asBinarySet() {
        if (this instanceof BS bs) {
            return bs.values();
        }
        throw TypedAccess.mismatch(null, Type.BS, this);
    }

    /** Whether this is the {@code NULL} value. */
    default boolean isNull() {
        return this instanceof Null;
    }

    /** The ten attribute types. */
    enum Type {
        /** String. */ S,
        /** Number. */ N,
        /** Binary. */ B,
        /** Boolean. */ BOOL,
        /** Null. */ NULL,
        /** List. */ L,
        /** Map. */ M,
        /** String set. */ SS,
        /** Number set. */ NS,
        /** Binary set. */ BS;

        /** The type named {@code name} as in DynamoDB ({@code "S"}, {@code "BOOL"}, …), or null. */
        public static Type named(String name) {
            for (Type t : values()) {
                if (t.name().equals(name)) {
                    return t;
                }
            }
            return null;
        }
    }

    /** A string; may be empty except in a key. */
    record S(String value) implements AttributeValue {
        /** Checks (and for sets and collections, copies) the value. */
        public S {
            requireWellFormed(value, "a string");
        }

        @Override
        public Type type() {
            return Type.S;
        }
    }

    /**
     * A number: an exact decimal with at most 38 significant digits and a magnitude of 1E-130 to
     * 9.9999999999999999999999999999999999999E+125 (or zero), as DynamoDB requires, refused otherwise with
     * DynamoDB's messages ("Number overflow. …", "Number underflow. …", "Attempting to store more than 38
     * significant digits in a Number"). Stored normalised (trailing zeros stripped), so equal numbers are equal
     * records.
     */
    record N(BigDecimal value) implements AttributeValue {
        private static final BigDecimal MAX = new BigDecimal("9.9999999999999999999999999999999999999E+125");
        private static final BigDecimal MIN = new BigDecimal("1E-130");

        /** Checks (and for sets and collections, copies) the value. */
        public N {
            Objects.requireNonNull(value, "value");
            value = normalise(value);
        }

        @Override
        public Type type() {
            return Type.N;
        }

        /** DynamoDB's text form (plain notation when short, scientific otherwise). */
        @Override
        public String toString() {
            return value.toString();
        }

        static BigDecimal normalise(BigDecimal v) {
            if (v.signum() == 0) {
                return BigDecimal.ZERO;
            }
            // Range first: stripTrailingZeros overflows the scale (ArithmeticException) on a value like
            // 100E+2147483647, and compareTo is safe for any scale.
            // DynamoDB's own words, which clients match on.
            BigDecimal magnitude = v.abs();
            if (magnitude.compareTo(MAX) > 0) {
                throw new ValidationException(
                        "Number overflow. Attempting to store a number with magnitude larger than supported range");
            }
            if (magnitude.compareTo(MIN) < 0) {
                throw new ValidationException(
                        "Number underflow. Attempting to store a number with magnitude smaller than supported range");
            }
            if (v.scale() == 0 && v.precision() <= 38) {
                // A whole number with scale 0 is its own normal form (below, stripped and then set back to
                // scale 0): every decoded count and timestamp, with no BigDecimal to make.
                return v;
            }
            BigDecimal n = v.stripTrailingZeros();
            if (n.precision() > 38) {
                throw new ValidationException("Attempting to store more than 38 significant digits in a Number");
            }
            if (n.scale() < 0) {
                // Keep the value, but with a non-negative scale when that needs no exponent beyond 38 digits.
                return n.precision() - n.scale() <= 38 ? n.setScale(0) : n;
            }
            return n;
        }
    }

    /** Binary; may be empty except in a key. */
    record B(byte[] value) implements AttributeValue {
        /** Checks (and for sets and collections, copies) the value. */
        public B {
            value = value.clone();
        }

        /** A copy of the bytes. */
        @Override
        public byte[] value() {
            return value.clone();
        }

        /** The bytes without copying; the caller must not modify them. */
        public ByteBuffer buffer() {
            return ByteBuffer.wrap(value).asReadOnlyBuffer();
        }

        @Override
        public Type type() {
            return Type.B;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof B b && Arrays.equals(value, b.value);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return "B[" + value.length + " bytes]";
        }
    }

    /** A boolean. */
    record Bool(boolean value) implements AttributeValue {
        @Override
        public Type type() {
            return Type.BOOL;
        }
    }

    /** The null value. */
    record Null() implements AttributeValue {
        @Override
        public Type type() {
            return Type.NULL;
        }
    }

    /** A list of values of any types. */
    record L(List<AttributeValue> values) implements AttributeValue {
        /** Checks (and for sets and collections, copies) the value. */
        public L {
            values = List.copyOf(values);
        }

        @Override
        public Type type() {
            return Type.L;
        }
    }

    /** A map from attribute names to values; keeps insertion order. */
    record M(Map<String, AttributeValue> values) implements AttributeValue {
        /** Checks (and for sets and collections, copies) the value. */
        public M {
            for (Map.Entry<String, AttributeValue> e : values.entrySet()) {
                requireWellFormed(e.getKey(), "a map key");
                Objects.requireNonNull(e.getValue(), "map value");
            }
            values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        }

        @Override
        public Type type() {
            return Type.M;
        }
    }

    /** A non-empty set of distinct strings. */
    record SS(Set<String> values) implements AttributeValue {
        /** Checks (and for sets and collections, copies) the value. */
        public SS {
            values = checkedSet(values, "string set");
            for (String v : values) {
                requireWellFormed(v, "a string set element");
            }
        }

        @Override
        public Type type() {
            return Type.SS;
        }
    }

    /** A non-empty set of distinct numbers (distinct by value). */
    record NS(Set<BigDecimal> values) implements AttributeValue {
        /** Checks (and for sets and collections, copies) the value. */
        public NS {
            List<BigDecimal> normalised = new ArrayList<>();
            for (BigDecimal v : values) {
                normalised.add(N.normalise(Objects.requireNonNull(v, "number")));
            }
            values = checkedSet(normalised, "number set");
        }

        @Override
        public Type type() {
            return Type.NS;
        }
    }

    /** A non-empty set of distinct binaries. */
    record BS(Set<ByteBuffer> values) implements AttributeValue {
        /** Checks (and for sets and collections, copies) the value. */
        public BS {
            List<ByteBuffer> copies = new ArrayList<>();
            for (ByteBuffer v : values) {
                ByteBuffer c = ByteBuffer.allocate(v.remaining()).put(v.duplicate());
                copies.add(c.flip().asReadOnlyBuffer());
            }
            values = checkedSet(copies, "binary set");
        }

        @Override
        public Type type() {
            return Type.BS;
        }
    }

    /** DynamoDB strings are UTF-8: a string with an unpaired surrogate has no value there ({@link Utf8}). */
    private static void requireWellFormed(String s, String what) {
        Objects.requireNonNull(s, what);
        int at = Utf8.unpairedSurrogate(s);
        if (at >= 0) {
            throw new ValidationException(what + " is not valid Unicode: unpaired surrogate at index " + at);
        }
    }

    private static <T> Set<T> checkedSet(Collection<T> values, String what) {
        if (values.isEmpty()) {
            throw new ValidationException("a " + what + " must not be empty");
        }
        Set<T> set = new LinkedHashSet<>();
        for (T v : values) {
            Objects.requireNonNull(v, what + " element");
            if (!set.add(v)) {
                throw new ValidationException("a " + what + " must not hold duplicates: " + v);
            }
        }
        return Collections.unmodifiableSet(set);
    }

    /** A string value. */
    static AttributeValue s(String value) {
        return new S(value);
    }

    /** A number from DynamoDB's text form ({@code "12"}, {@code "-0.5"}, {@code "1E+10"}). */
    static AttributeValue n(String value) {
        try {
            return new N(new BigDecimal(value));
        } catch (NumberFormatException e) {
            throw new ValidationException("The parameter cannot be converted to a numeric value: " + value);
        }
    }

    /** A number. */
    static AttributeValue n(long value) {
        return new N(BigDecimal.valueOf(value));
    }

    /** A number. */
    static AttributeValue n(BigDecimal value) {
        return new N(value);
    }

    /** A number. */
    static AttributeValue n(BigInteger value) {
        return new N(new BigDecimal(value));
    }

    /** A binary value (copied). */
    static AttributeValue b(byte[] value) {
        return new B(value);
    }

    /** A boolean. */
    static AttributeValue bool(boolean value) {
        return new Bool(value);
    }

    /** The null value. */
    static AttributeValue nul() {
        return new Null();
    }

    /** A list. */
    static AttributeValue l(AttributeValue... values) {
        return new L(List.of(values));
    }

    /** A list. */
    static AttributeValue l(List<AttributeValue> values) {
        return new L(values);
    }

    /** A map. */
    static AttributeValue m(Map<String, AttributeValue> values) {
        return new M(values);
    }

    /** A string set. */
    static AttributeValue ss(String... values) {
        Set<String> set = new LinkedHashSet<>(Arrays.asList(values));
        if (set.size() != values.length) {
            throw new ValidationException("a string set must not hold duplicates");
        }
        return new SS(set);
    }

    /** A number set from DynamoDB's text forms. */
    static AttributeValue ns(String... values) {
        List<BigDecimal> numbers = new ArrayList<>();
        for (String v : values) {
            numbers.add(((N) n(v)).value());
        }
        Set<BigDecimal> set = new LinkedHashSet<>(numbers);
        if (set.size() != numbers.size()) {
            throw new ValidationException("a number set must not hold duplicates");
        }
        return new NS(set);
    }

    /** A binary set. */
    static AttributeValue bs(byte[]... values) {
        Set<ByteBuffer> set = new LinkedHashSet<>();
        for (byte[] v : values) {
            if (!set.add(ByteBuffer.wrap(v))) {
                throw new ValidationException("a binary set must not hold duplicates");
            }
        }
        return new BS(set);
    }
}
