package dev.lacuna.dynamodb;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;

/**
 * {@code ConsumedCapacity}, when a request asks for it ({@code ReturnConsumedCapacity} {@code TOTAL} or
 * {@code INDEXES}): what DynamoDB's on-demand accounting would charge for the items the request wrote or returned —
 * a write unit per started kilobyte of the item, a read unit per started 4 KB (half for an eventually consistent
 * read), twice that in a transaction. Lacuna charges nothing; this lets code that logs or budgets capacity run
 * unchanged. It is an estimate: the size of an item it did not return (the old image of a put, the items a filter
 * dropped) is not known here, so reads count what they return and writes what they write.
 */
final class Capacity {
    private Capacity() {
    }

    /** Whether {@code raw} asks for consumed capacity. */
    static boolean asked(String raw) {
        ReturnConsumedCapacity r = Errors.enumValue(raw, "returnConsumedCapacity", ReturnConsumedCapacity.class);
        return r == ReturnConsumedCapacity.TOTAL || r == ReturnConsumedCapacity.INDEXES;
    }

    /** The capacity of writing {@code item} (of at least one unit). */
    static ConsumedCapacity write(String table, Map<String, AttributeValue> item, boolean transactional) {
        double units = Math.max(1, Math.ceil(size(item) / 1024.0)) * (transactional ? 2 : 1);
        return ConsumedCapacity.builder().tableName(table).capacityUnits(units).writeCapacityUnits(units).build();
    }

    /** The capacity of reading {@code items} (of at least one unit, or half one). */
    static ConsumedCapacity read(String table, Collection<Map<String, AttributeValue>> items, boolean consistent) {
        long bytes = 0;
        for (Map<String, AttributeValue> item : items) {
            bytes += size(item);
        }
        double units = Math.max(1, Math.ceil(bytes / 4096.0)) * (consistent ? 1 : 0.5);
        return ConsumedCapacity.builder().tableName(table).capacityUnits(units).readCapacityUnits(units).build();
    }

    /**
     * The capacity of the writes of a batch or a transaction, one entry per table in the order first written
     * (DynamoDB's {@code ConsumedCapacity} list): each item a write unit per started kilobyte, twice that in a
     * transaction.
     */
    static List<ConsumedCapacity> writes(List<Map.Entry<String, Map<String, AttributeValue>>> written,
                                         boolean transactional) {
        Map<String, Double> units = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, Map<String, AttributeValue>> w : written) {
            units.merge(w.getKey(), write(w.getKey(), w.getValue(), transactional).capacityUnits(), Double::sum);
        }
        List<ConsumedCapacity> out = new java.util.ArrayList<>();
        units.forEach((table, u) -> out.add(ConsumedCapacity.builder().tableName(table).capacityUnits(u)
                .writeCapacityUnits(u).build()));
        return out;
    }

    /**
     * The capacity of the item reads of a batch or a transaction, one entry per table: each item (found or not) a
     * read unit per started 4 KB, half that for an eventually consistent read, twice that in a transaction.
     * {@code consistent} tells, by table, whether its reads were asked strongly consistent.
     */
    static List<ConsumedCapacity> reads(List<Map.Entry<String, Map<String, AttributeValue>>> read,
                                        java.util.function.Predicate<String> consistent, boolean transactional) {
        Map<String, Double> units = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, Map<String, AttributeValue>> r : read) {
            double u = Math.max(1, Math.ceil(size(r.getValue()) / 4096.0))
                    * (transactional ? 2 : consistent.test(r.getKey()) ? 1 : 0.5);
            units.merge(r.getKey(), u, Double::sum);
        }
        List<ConsumedCapacity> out = new java.util.ArrayList<>();
        units.forEach((table, u) -> out.add(ConsumedCapacity.builder().tableName(table).capacityUnits(u)
                .readCapacityUnits(u).build()));
        return out;
    }

    /** An item's size by DynamoDB's rules: each attribute's name in UTF-8 plus its value. */
    static long size(Map<String, AttributeValue> item) {
        if (item == null) {
            return 0;
        }
        long size = 0;
        for (Map.Entry<String, AttributeValue> e : item.entrySet()) {
            size += utf8(e.getKey()) + size(e.getValue());
        }
        return size;
    }

    private static long size(AttributeValue v) {
        if (v.s() != null) {
            return utf8(v.s());
        }
        if (v.n() != null) {
            return number(v.n());
        }
        if (v.b() != null) {
            return v.b().asByteArrayUnsafe().length;
        }
        if (v.bool() != null || v.nul() != null) {
            return 1;
        }
        if (v.hasSs()) {
            return v.ss().stream().mapToLong(Capacity::utf8).sum();
        }
        if (v.hasNs()) {
            return v.ns().stream().mapToLong(Capacity::number).sum();
        }
        if (v.hasBs()) {
            return v.bs().stream().mapToLong(b -> b.asByteArrayUnsafe().length).sum();
        }
        if (v.hasM()) {
            return 3 + v.m().size() + size(v.m());
        }
        List<AttributeValue> l = v.l();
        long size = 3 + l.size();
        for (AttributeValue e : l) {
            size += size(e);
        }
        return size;
    }

    /** A number takes about one byte per two significant digits, plus one. */
    private static long number(String n) {
        try {
            return (new BigDecimal(n).stripTrailingZeros().precision() + 1) / 2 + 1;
        } catch (NumberFormatException e) {
            return n.length();
        }
    }

    private static long utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

}
