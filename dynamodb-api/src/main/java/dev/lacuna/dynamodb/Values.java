package dev.lacuna.dynamodb;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.TableSpec;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.core.SdkBytes;

/**
 * Attribute values, items and keys between the SDK's model ({@code software.amazon.awssdk.services.dynamodb.model})
 * and Lacuna's ({@code dev.lacuna}). A value the SDK can hold but DynamoDB refuses (no type, two types, {@code NULL}
 * false) is refused with DynamoDB's message; the rest of the checking (numbers, sets, key sizes) is Lacuna's own, in
 * its value types.
 */
final class Values {
    private Values() {
    }

    /** A Lacuna value from an SDK one. */
    static AttributeValue lacuna(software.amazon.awssdk.services.dynamodb.model.AttributeValue v) {
        if (v == null) {
            throw Errors.validation("Supplied AttributeValue is empty, must contain exactly one of the supported"
                    + " datatypes");
        }
        int types = (v.s() != null ? 1 : 0) + (v.n() != null ? 1 : 0) + (v.b() != null ? 1 : 0)
                + (v.bool() != null ? 1 : 0) + (v.nul() != null ? 1 : 0) + (v.hasSs() ? 1 : 0) + (v.hasNs() ? 1 : 0)
                + (v.hasBs() ? 1 : 0) + (v.hasM() ? 1 : 0) + (v.hasL() ? 1 : 0);
        if (types == 0) {
            throw Errors.validation("Supplied AttributeValue is empty, must contain exactly one of the supported"
                    + " datatypes");
        }
        if (types > 1) {
            throw Errors.validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one"
                    + " of the supported datatypes");
        }
        if (v.s() != null) {
            return new AttributeValue.S(v.s());
        }
        if (v.n() != null) {
            return AttributeValue.n(v.n());
        }
        if (v.b() != null) {
            return new AttributeValue.B(v.b().asByteArrayUnsafe());
        }
        if (v.bool() != null) {
            return new AttributeValue.Bool(v.bool());
        }
        if (v.nul() != null) {
            if (!v.nul()) {
                throw Errors.validation("One or more parameter values were invalid: Null attribute value types must"
                        + " have the value of true");
            }
            return new AttributeValue.Null();
        }
        if (v.hasSs()) {
            return new AttributeValue.SS(set(v.ss(), "string"));
        }
        if (v.hasNs()) {
            List<BigDecimal> numbers = new ArrayList<>();
            for (String n : v.ns()) {
                numbers.add(((AttributeValue.N) AttributeValue.n(n)).value());
            }
            return new AttributeValue.NS(set(numbers, "number"));
        }
        if (v.hasBs()) {
            List<ByteBuffer> bytes = new ArrayList<>();
            for (SdkBytes b : v.bs()) {
                bytes.add(ByteBuffer.wrap(b.asByteArrayUnsafe()));
            }
            return new AttributeValue.BS(set(bytes, "binary"));
        }
        if (v.hasM()) {
            return new AttributeValue.M(lacunaMap(v.m()));
        }
        List<AttributeValue> list = new ArrayList<>(v.l().size());
        for (software.amazon.awssdk.services.dynamodb.model.AttributeValue e : v.l()) {
            list.add(lacuna(e));
        }
        return new AttributeValue.L(list);
    }

    /** Duplicates are refused with DynamoDB's words (Lacuna's set types would refuse them too, in theirs). */
    private static <T> Set<T> set(List<T> values, String kind) {
        Set<T> set = new LinkedHashSet<>(values);
        if (set.size() != values.size() && !"binary".equals(kind)) {
            throw Errors.validation("One or more parameter values were invalid: Input collection " + values
                    + " contains duplicates.");
        }
        if (set.isEmpty()) {
            throw Errors.validation("One or more parameter values were invalid: An " + kind + " set  may not be empty");
        }
        return set;
    }

    /** A map of Lacuna values from a map of SDK ones (an item, a key, expression attribute values). */
    static Map<String, AttributeValue> lacunaMap(
            Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> map) {
        Map<String, AttributeValue> out = new LinkedHashMap<>();
        for (Map.Entry<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> e : map.entrySet()) {
            out.put(e.getKey(), lacuna(e.getValue()));
        }
        return out;
    }

    /** A Lacuna item from an SDK one. */
    static Item item(Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> map) {
        return Item.of(lacunaMap(map));
    }

    /**
     * The primary key {@code map} gives for a table (or index) keyed as {@code spec}: exactly its key attributes,
     * else DynamoDB's "The provided key element does not match the schema".
     */
    static Key key(Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> map, TableSpec spec) {
        KeyAttribute pk = spec.partitionKey();
        KeyAttribute sk = spec.sortKey();
        int expected = sk == null ? 1 : 2;
        if (map == null || map.size() != expected || !map.containsKey(pk.name())
                || (sk != null && !map.containsKey(sk.name()))) {
            throw Errors.validation("The provided key element does not match the schema");
        }
        AttributeValue p = lacuna(map.get(pk.name()));
        AttributeValue s = sk == null ? null : lacuna(map.get(sk.name()));
        if (p.type() != pk.type() || (sk != null && s.type() != sk.type())) {
            throw Errors.validation("The provided key element does not match the schema");
        }
        return sk == null ? Key.of(pk.name(), p) : Key.of(pk.name(), p, sk.name(), s);
    }

    /** An SDK value from a Lacuna one. */
    static software.amazon.awssdk.services.dynamodb.model.AttributeValue sdk(AttributeValue v) {
        var b = software.amazon.awssdk.services.dynamodb.model.AttributeValue.builder();
        if (v instanceof AttributeValue.S s) {
            b.s(s.value());
        } else if (v instanceof AttributeValue.N n) {
            b.n(n.toString());
        } else if (v instanceof AttributeValue.B bin) {
            b.b(SdkBytes.fromByteArrayUnsafe(bin.value()));
        } else if (v instanceof AttributeValue.Bool bool) {
            b.bool(bool.value());
        } else if (v instanceof AttributeValue.Null) {
            b.nul(true);
        } else if (v instanceof AttributeValue.L l) {
            List<software.amazon.awssdk.services.dynamodb.model.AttributeValue> list = new ArrayList<>(l.values().size());
            for (AttributeValue e : l.values()) {
                list.add(sdk(e));
            }
            b.l(list);
        } else if (v instanceof AttributeValue.M m) {
            b.m(sdkMap(m.values()));
        } else if (v instanceof AttributeValue.SS ss) {
            b.ss(new ArrayList<>(ss.values()));
        } else if (v instanceof AttributeValue.NS ns) {
            List<String> numbers = new ArrayList<>(ns.values().size());
            for (BigDecimal d : ns.values()) {
                numbers.add(new AttributeValue.N(d).toString());
            }
            b.ns(numbers);
        } else {
            List<SdkBytes> bytes = new ArrayList<>();
            for (ByteBuffer buffer : ((AttributeValue.BS) v).values()) {
                bytes.add(SdkBytes.fromByteBuffer(buffer.duplicate()));
            }
            b.bs(bytes);
        }
        return b.build();
    }

    /** A map of SDK values from a map of Lacuna ones. */
    static Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> sdkMap(
            Map<String, AttributeValue> map) {
        Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> out = new LinkedHashMap<>();
        for (Map.Entry<String, AttributeValue> e : map.entrySet()) {
            out.put(e.getKey(), sdk(e.getValue()));
        }
        return out;
    }

    /** An SDK item from a Lacuna one. */
    static Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> sdk(Item item) {
        return sdkMap(item.attributes());
    }
}
