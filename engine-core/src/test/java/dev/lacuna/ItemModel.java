package dev.lacuna;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The in-memory model {@link ItemModelTest} holds the database to: each table a {@link TreeMap} in DynamoDB's
 * key order, DynamoDB's semantics for exactly the expression forms the test generates, and ({@link Forms}) the
 * random generator of those forms, each written next to its meaning. Everything here is written out from the
 * DynamoDB Developer Guide, without {@code dev.lacuna.expr}, so that a mistake there cannot hide by being made
 * twice.
 */
final class ItemModel {
    /** Where DynamoDB answers with a {@link ValidationException}. */
    static final class Invalid extends RuntimeException {
        Invalid(String message) {
            super(message, null, false, false);
        }
    }

    /** A table's key schema; {@code sk} is null for a table without a sort key. */
    record Schema(String name, String pk, AttributeValue.Type pkType, String sk, AttributeValue.Type skType) {
        Key key(AttributeValue p, AttributeValue s) {
            return sk == null ? Key.of(pk, p) : Key.of(pk, p, sk, s);
        }

        Key keyOf(Item item) {
            return key(item.get(pk), sk == null ? null : item.get(sk));
        }
    }

    /**
     * One action of an update expression: its clause ({@code SET}, {@code REMOVE}, {@code ADD}, {@code DELETE}),
     * its text, the top-level attribute it writes, and that attribute's new value (null: absent) computed from
     * the whole item as it was before the update, as DynamoDB computes every action.
     */
    record Action(String clause, String text, String attribute, Function<Map<String, AttributeValue>, AttributeValue> result) {
    }

    /** Primary key order: partition key, then sort key. */
    static final Comparator<Key> KEY_ORDER = (a, b) -> {
        int c = compareKeyValues(a.partitionKey(), b.partitionKey());
        return c != 0 || a.sortKey() == null ? c : compareKeyValues(a.sortKey(), b.sortKey());
    };

    private final Map<String, Schema> schemas = new LinkedHashMap<>();
    private final Map<String, TreeMap<Key, Item>> tables = new HashMap<>();

    ItemModel(List<Schema> schemas) {
        for (Schema s : schemas) {
            this.schemas.put(s.name(), s);
            tables.put(s.name(), new TreeMap<>(KEY_ORDER));
        }
    }

    Item get(String table, Key key) {
        return tables.get(table).get(key);
    }

    void put(String table, Item item) {
        tables.get(table).put(schemas.get(table).keyOf(item), item);
    }

    /** Stores {@code item} under {@code key}, or deletes the key if {@code item} is null. */
    void store(String table, Key key, Item item) {
        if (item == null) {
            tables.get(table).remove(key);
        } else {
            tables.get(table).put(key, item);
        }
    }

    Collection<Item> items(String table) {
        return tables.get(table).values();
    }

    /** The items with partition key {@code pk}, in ascending sort key order. */
    List<Item> partition(String table, AttributeValue pk) {
        List<Item> out = new ArrayList<>();
        for (Map.Entry<Key, Item> e : tables.get(table).entrySet()) {
            if (e.getKey().partitionKey().equals(pk)) {
                out.add(e.getValue());
            }
        }
        return out;
    }

    /** Key value order: N by numeric value, S by UTF-8 bytes, B by unsigned bytes. */
    static int compareKeyValues(AttributeValue a, AttributeValue b) {
        if (a instanceof AttributeValue.N x && b instanceof AttributeValue.N y) {
            return x.value().compareTo(y.value());
        }
        if (a instanceof AttributeValue.S x && b instanceof AttributeValue.S y) {
            return Arrays.compareUnsigned(x.value().getBytes(StandardCharsets.UTF_8),
                    y.value().getBytes(StandardCharsets.UTF_8));
        }
        return Arrays.compareUnsigned(((AttributeValue.B) a).value(), ((AttributeValue.B) b).value());
    }

    // ---- document paths: "a", "a.b" (a map entry) and "a[i]" (a list element), as the test writes them

    /** The value at {@code path} in {@code item}, or null. */
    static AttributeValue path(Map<String, AttributeValue> item, String path) {
        int dot = path.indexOf('.');
        int bracket = path.indexOf('[');
        if (dot > 0) {
            AttributeValue top = item.get(path.substring(0, dot));
            return top instanceof AttributeValue.M m ? m.values().get(path.substring(dot + 1)) : null;
        }
        if (bracket > 0) {
            int i = Integer.parseInt(path.substring(bracket + 1, path.length() - 1));
            return item.get(path.substring(0, bracket)) instanceof AttributeValue.L l && i < l.values().size()
                    ? l.values().get(i) : null;
        }
        return item.get(path);
    }

    /** The item reduced to the projected paths (which do not overlap); list elements keep their index order. */
    static Item project(Item item, List<String> paths) {
        Map<String, AttributeValue> out = new LinkedHashMap<>();
        Map<String, TreeMap<Integer, AttributeValue>> lists = new LinkedHashMap<>();
        for (String p : paths) {
            AttributeValue v = path(item.attributes(), p);
            if (v == null) {
                continue;
            }
            int dot = p.indexOf('.');
            int bracket = p.indexOf('[');
            if (dot > 0) {
                out.put(p.substring(0, dot), new AttributeValue.M(Map.of(p.substring(dot + 1), v)));
            } else if (bracket > 0) {
                lists.computeIfAbsent(p.substring(0, bracket), k -> new TreeMap<>())
                        .put(Integer.parseInt(p.substring(bracket + 1, p.length() - 1)), v);
            } else {
                out.put(p, v);
            }
        }
        lists.forEach((name, elements) -> out.put(name, new AttributeValue.L(new ArrayList<>(elements.values()))));
        return Item.of(out);
    }

    // ---- conditions and filters

    /** The order of two values of one orderable type (N, S, B), or null if they have none. */
    static Integer order(AttributeValue a, AttributeValue b) {
        boolean orderable = a.type() == b.type() && (a.type() == AttributeValue.Type.N
                || a.type() == AttributeValue.Type.S || a.type() == AttributeValue.Type.B);
        return orderable ? compareKeyValues(a, b) : null;
    }

    /** {@code a <op> b} in a condition: a missing operand makes everything but {@code <>} false. */
    static boolean compare(AttributeValue a, String op, AttributeValue b) {
        if (a == null || b == null) {
            return op.equals("<>");
        }
        if (op.equals("=")) {
            return a.equals(b);
        }
        if (op.equals("<>")) {
            return !a.equals(b);
        }
        Integer c = order(a, b);
        return c != null && switch (op) {
            case "<" -> c < 0;
            case "<=" -> c <= 0;
            case ">" -> c > 0;
            default -> c >= 0;
        };
    }

    /** {@code size(v)}: characters of a string, bytes of a binary, elements of a set, list or map; else none. */
    static AttributeValue size(AttributeValue v) {
        long n;
        if (v instanceof AttributeValue.S s) {
            n = s.value().length(); // the test's strings are all in the Basic Multilingual Plane
        } else if (v instanceof AttributeValue.B b) {
            n = b.value().length;
        } else if (v instanceof AttributeValue.SS s) {
            n = s.values().size();
        } else if (v instanceof AttributeValue.NS s) {
            n = s.values().size();
        } else if (v instanceof AttributeValue.BS s) {
            n = s.values().size();
        } else if (v instanceof AttributeValue.L l) {
            n = l.values().size();
        } else if (v instanceof AttributeValue.M m) {
            n = m.values().size();
        } else {
            return null;
        }
        return AttributeValue.n(n);
    }

    static boolean beginsWith(AttributeValue v, AttributeValue prefix) {
        if (v instanceof AttributeValue.S s && prefix instanceof AttributeValue.S p) {
            return s.value().startsWith(p.value());
        }
        if (v instanceof AttributeValue.B b && prefix instanceof AttributeValue.B p) {
            byte[] x = b.value();
            byte[] y = p.value();
            return x.length >= y.length && Arrays.equals(Arrays.copyOf(x, y.length), y);
        }
        return false;
    }

    static boolean contains(AttributeValue v, AttributeValue x) {
        if (v instanceof AttributeValue.S s) {
            return x instanceof AttributeValue.S o && s.value().contains(o.value());
        }
        if (v instanceof AttributeValue.SS s) {
            return x instanceof AttributeValue.S o && s.values().contains(o.value());
        }
        if (v instanceof AttributeValue.NS s) {
            return x instanceof AttributeValue.N o && s.values().stream().anyMatch(d -> d.compareTo(o.value()) == 0);
        }
        if (v instanceof AttributeValue.L l) {
            return l.values().contains(x);
        }
        return false;
    }

    // ---- updates

    /** The item {@code actions} make of {@code before} (null: absent, so the item starts as its key); null if it stays absent. */
    static Item applyUpdate(Item before, Key key, List<Action> actions) {
        Map<String, AttributeValue> old = before == null ? Map.of() : before.attributes();
        Map<String, AttributeValue> out = new LinkedHashMap<>(key.attributes());
        out.putAll(old);
        for (Action a : actions) {
            AttributeValue v = a.result().apply(old);
            if (v == null) {
                out.remove(a.attribute());
            } else {
                out.put(a.attribute(), v);
            }
        }
        if (before == null && !actions.isEmpty() && out.size() == key.attributes().size()) {
            return null; // an update that adds nothing (only REMOVE or DELETE) does not create an absent item
        }
        return Item.of(out);
    }

    /** ReturnValues UPDATED_OLD / UPDATED_NEW: the touched attributes {@code item} has, or null if none. */
    static Item updated(Item item, Collection<String> touched) {
        if (item == null) {
            return null;
        }
        Map<String, AttributeValue> out = new LinkedHashMap<>();
        for (String name : touched) {
            if (item.has(name)) {
                out.put(name, item.get(name));
            }
        }
        return out.isEmpty() ? null : Item.of(out);
    }

    /** A value a SET reads: it must exist. */
    static AttributeValue required(AttributeValue v) {
        if (v == null) {
            throw new Invalid("The provided expression refers to an attribute that does not exist in the item");
        }
        return v;
    }

    static AttributeValue arithmetic(AttributeValue a, AttributeValue b, boolean plus) {
        if (!(a instanceof AttributeValue.N x) || !(b instanceof AttributeValue.N y)) {
            throw new Invalid("An operand in the update expression has an incorrect data type");
        }
        return AttributeValue.n(plus ? x.value().add(y.value()) : x.value().subtract(y.value()));
    }

    static AttributeValue listAppend(AttributeValue a, AttributeValue b) {
        if (!(a instanceof AttributeValue.L x) || !(b instanceof AttributeValue.L y)) {
            throw new Invalid("An operand in the update expression has an incorrect data type");
        }
        List<AttributeValue> joined = new ArrayList<>(x.values());
        joined.addAll(y.values());
        return AttributeValue.l(joined);
    }

    /** {@code SET a[i] = v}: replaces element i, or appends past the end; the list must exist. */
    static AttributeValue setElement(AttributeValue old, int i, AttributeValue v) {
        if (!(old instanceof AttributeValue.L l)) {
            throw new Invalid("The document path provided in the update expression is invalid for update");
        }
        List<AttributeValue> copy = new ArrayList<>(l.values());
        if (i < copy.size()) {
            copy.set(i, v);
        } else {
            copy.add(v);
        }
        return AttributeValue.l(copy);
    }

    /**
     * {@code REMOVE a[i]}: removes element i if there is one; refused if {@code a} is not a list (or absent). On an
     * item that does not exist DynamoDB ignores it instead (the caller does not call this then).
     */
    static AttributeValue removeElement(AttributeValue old, int i) {
        if (!(old instanceof AttributeValue.L l)) {
            throw new Invalid("The document path provided in the update expression is invalid for update");
        }
        if (i >= l.values().size()) {
            return old;
        }
        List<AttributeValue> copy = new ArrayList<>(l.values());
        copy.remove(i);
        return AttributeValue.l(copy);
    }

    /** {@code ADD}: a number adds (absent counts as 0), a set unites with one of its type (absent is empty). */
    static AttributeValue add(AttributeValue old, AttributeValue operand) {
        if (old == null) {
            return operand;
        }
        if (old instanceof AttributeValue.N && operand instanceof AttributeValue.N) {
            return arithmetic(old, operand, true);
        }
        if (old.type() != operand.type() || elements(old) == null) {
            throw new Invalid("An operand in the update expression has an incorrect data type");
        }
        Set<Object> union = new LinkedHashSet<>(elements(old));
        union.addAll(elements(operand));
        return set(old.type(), union);
    }

    /** {@code DELETE}: the set without the operand's elements, absent if none is left; nothing if absent. */
    static AttributeValue delete(AttributeValue old, AttributeValue operand) {
        if (old == null) {
            return null;
        }
        if (old.type() != operand.type() || elements(old) == null) {
            throw new Invalid("An operand in the update expression has an incorrect data type");
        }
        Set<Object> left = new LinkedHashSet<>(elements(old));
        left.removeAll(elements(operand));
        return left.isEmpty() ? null : set(old.type(), left);
    }

    private static Collection<?> elements(AttributeValue v) {
        if (v instanceof AttributeValue.SS s) {
            return s.values();
        }
        if (v instanceof AttributeValue.NS s) {
            return s.values();
        }
        return v instanceof AttributeValue.BS s ? s.values() : null;
    }

    @SuppressWarnings("unchecked")
    private static AttributeValue set(AttributeValue.Type type, Set<?> elements) {
        return switch (type) {
            case SS -> new AttributeValue.SS((Set<String>) elements);
            case NS -> new AttributeValue.NS((Set<BigDecimal>) elements);
            default -> new AttributeValue.BS((Set<ByteBuffer>) elements);
        };
    }

    /** A condition or filter: its text, and what DynamoDB makes of it for an item's attributes. */
    record Cond(String text, Predicate<Map<String, AttributeValue>> test) {
    }

    /** The expression attribute names and values of one request, allocated as its expressions are written. */
    static final class Ex {
        private final Random random;
        private final Map<String, String> names = new LinkedHashMap<>();
        private final Map<String, AttributeValue> values = new LinkedHashMap<>();

        Ex(Random random) {
            this.random = random;
        }

        /** An attribute name, as itself or through a #placeholder ("count" is reserved, so always through one). */
        String p(String attribute) {
            if (!attribute.equals("count") && random.nextInt(4) != 0) {
                return attribute;
            }
            String placeholder = "#n" + names.size();
            names.put(placeholder, attribute);
            return placeholder;
        }

        /** A document path of the forms "a", "a.b" and "a[i]". */
        String path(String path) {
            int dot = path.indexOf('.');
            int bracket = path.indexOf('[');
            return dot > 0 ? p(path.substring(0, dot)) + "." + p(path.substring(dot + 1))
                    : bracket > 0 ? p(path.substring(0, bracket)) + path.substring(bracket) : p(path);
        }

        String paths(List<String> paths) {
            return String.join(", ", paths.stream().map(this::path).toList());
        }

        String v(AttributeValue value) {
            String placeholder = ":v" + values.size();
            values.put(placeholder, value);
            return placeholder;
        }

        <T extends ExpressionRequest<T>> T on(T request) {
            return request.names(names).values(values);
        }

        void onAny(ExpressionRequest<?> request) {
            request.names(names);
            request.values(values);
        }

        @Override
        public String toString() {
            return names + " " + values;
        }
    }

    /**
     * The random vocabulary of {@link ItemModelTest}: keys from small pools (so that items collide often),
     * items, and the expression forms it knows, each written together with its meaning under this model, so
     * that the text sent to the database and the model's expectation cannot drift apart.
     */
    static final class Forms {
        // Key pools. Strings: NUL bytes, the edges of UTF-8's 1-, 2- and 3-byte forms, and characters whose
        // UTF-16 order differs from their UTF-8 order (U+E000 and U+FFFF sort below an emoji's surrogates in
        // UTF-16, above them in UTF-8). Numbers: both signs, both ends of DynamoDB's range, 38 digits. Binaries:
        // bytes above 0x7F (negative when signed), and the 0x00 and 0xFF that key encodings escape.
        static final List<AttributeValue> S_PK = strings("a", "b", "ü");
        static final List<AttributeValue> S_SK = strings("a", "a\u0000", "a\u0000b", "ab", "B", "b", "\u007F", "\u0080", "é",
                "\u07FF", "\u0800", "\uE000", "\uFFFF", "😀", "😀a");
        static final List<AttributeValue> N_PK = numbers("1", "-1", "0.5", "0");
        static final List<AttributeValue> N_SK = numbers("-9.9999999999999999999999999999999999999E+125", "-100", "-1.5",
                "-1", "-0.001", "-1E-130", "0", "1E-130", "0.001", "1", "1.5", "2", "10", "1E+20",
                "12345678901234567890123456789012345678", "9.9999999999999999999999999999999999999E+125");
        static final List<AttributeValue> B_PK = binaries(new int[] {0}, new int[] {0x80}, new int[] {0xFF, 0});
        static final List<AttributeValue> B_SK = binaries(new int[] {0}, new int[] {0, 0}, new int[] {0, 0xFF},
                new int[] {0, 0xFF, 0}, new int[] {0, 1}, new int[] {1}, new int[] {0x7F}, new int[] {0x80},
                new int[] {0xFF}, new int[] {0xFF, 0}, new int[] {0xFF, 0xFF});
        static final List<AttributeValue> FLAT_ID = strings("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k10", "ä",
                "😀");
        static final List<AttributeValue> STRS = strings("", "a", "ab", "abc", "b", "ba", "é", "éa", "x y");
        static final List<String> UPDATABLE = List.of("n", "count", "s", "lst", "tags", "nums", "flag");
        static final List<String> COMPARATORS = List.of("=", "<>", "<", "<=", ">", ">=");

        private final Random random;

        Forms(Random random) {
            this.random = random;
        }

        AttributeValue partitionKey(Schema s) {
            return pick(s.sk() == null ? FLAT_ID : pool(s, true));
        }

        /** A begins_with operand for a sort key (a number, which DynamoDB rejects, for a numeric one). */
        AttributeValue sortKeyPrefix(Schema s) {
            return switch (s.skType()) {
                case B -> pick(B_SK);
                case N -> pick(N_SK);
                default -> pick(strings("a", "a\u0000", "😀", "\uFFFF", "é", "b"));
            };
        }

        private static List<AttributeValue> pool(Schema s, boolean partition) {
            return switch (s.pkType()) {
                case S -> partition ? S_PK : S_SK;
                case N -> partition ? N_PK : N_SK;
                default -> partition ? B_PK : B_SK;
            };
        }

        Key key(Schema s) {
            return s.sk() == null ? s.key(pick(FLAT_ID), null) : s.key(partitionKey(s), pick(pool(s, false)));
        }

        /** A sort key value for a key condition: mostly one of the pool's, sometimes one between them. */
        AttributeValue keyConditionValue(Schema s) {
            if (random.nextInt(4) != 0) {
                return pick(pool(s, false));
            }
            return switch (s.skType()) {
                case S -> pick(strings("a\u0001", "c", "aa", "\uD7FF", "😀\u0000"));
                case N -> pick(numbers("0.5", "-50", "3", "-0.0005", "1E+19"));
                default -> pick(binaries(new int[] {0x7F, 0xFF}, new int[] {0x10}, new int[] {0, 0, 0}));
            };
        }

        Item item(Schema s, Key key) {
            Map<String, AttributeValue> a = new LinkedHashMap<>(key.attributes());
            if (random.nextBoolean()) {
                a.put("n", random.nextInt(12) == 0 ? AttributeValue.s("x") : number());
            }
            if (random.nextInt(3) == 0) {
                a.put("count", number());
            }
            if (random.nextBoolean()) {
                a.put("s", pick(STRS));
            }
            if (random.nextInt(3) == 0) {
                a.put("tags", stringSet());
            }
            if (random.nextInt(4) == 0) {
                a.put("nums", numberSet());
            }
            if (random.nextInt(3) == 0) {
                a.put("lst", list());
            }
            if (random.nextInt(4) == 0) {
                a.put("flag", AttributeValue.bool(random.nextBoolean()));
            }
            if (random.nextInt(6) == 0) {
                a.put("nil", AttributeValue.nul());
            }
            if (random.nextInt(4) == 0) {
                a.put("bin", binary());
            }
            if (random.nextInt(40) == 0) {
                // a value of a few kilobytes, so that tiny memtables flush and tiny tables split often
                char[] big = new char[1000 + random.nextInt(5000)];
                for (int i = 0; i < big.length; i++) {
                    big[i] = (char) ('a' + random.nextInt(26));
                }
                a.put("big", AttributeValue.s(new String(big)));
            }
            if (random.nextInt(4) == 0) {
                Map<String, AttributeValue> m = new LinkedHashMap<>();
                if (random.nextInt(10) < 7) {
                    m.put("a", random.nextBoolean() ? number() : pick(STRS));
                }
                m.put("b", pick(STRS));
                a.put("m", AttributeValue.m(m));
            }
            return Item.of(a);
        }

        AttributeValue number() {
            return random.nextInt(8) == 0 ? pick(numbers("0.5", "-1.5", "2.25", "1E+2", "-0.125"))
                    : AttributeValue.n(random.nextInt(21) - 5);
        }

        AttributeValue scalar() {
            return switch (random.nextInt(5)) {
                case 0, 1 -> number();
                case 2 -> pick(STRS);
                case 3 -> AttributeValue.bool(random.nextBoolean());
                default -> AttributeValue.nul();
            };
        }

        AttributeValue list() {
            List<AttributeValue> l = new ArrayList<>();
            for (int i = random.nextInt(4); i > 0; i--) {
                l.add(scalar());
            }
            return AttributeValue.l(l);
        }

        AttributeValue binary() {
            int[] bytes = new int[random.nextInt(4)];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = new int[] {0, 1, 0x7F, 0x80, 0xFF}[random.nextInt(5)];
            }
            return binaries(bytes).get(0);
        }

        AttributeValue stringSet() {
            List<String> l = new ArrayList<>(List.of("x", "y", "z", "w"));
            Collections.shuffle(l, random);
            return AttributeValue.ss(l.subList(0, 1 + random.nextInt(l.size())).toArray(String[]::new));
        }

        AttributeValue numberSet() {
            List<String> l = new ArrayList<>(List.of("1", "2", "3", "1.5", "-1"));
            Collections.shuffle(l, random);
            return AttributeValue.ns(l.subList(0, 1 + random.nextInt(l.size())).toArray(String[]::new));
        }

        /** A value to compare {@code path} with: usually of the type the path usually holds. */
        AttributeValue valueFor(Schema s, String path) {
            if (random.nextInt(7) == 0) {
                return scalar();
            }
            return switch (path) {
                case "n", "count" -> number();
                case "s" -> pick(STRS);
                case "m.a" -> random.nextBoolean() ? number() : pick(STRS);
                case "bin" -> binary();
                case "lst[0]" -> scalar();
                default -> path.equals(s.pk()) ? pick(s.sk() == null ? FLAT_ID : pool(s, true)) : pick(pool(s, false));
            };
        }

        /** A write's condition: often on the key's existence, as conditional writes mostly are. */
        Cond writeCondition(Ex ex, Schema s) {
            int kind = random.nextInt(10);
            if (kind < 2) {
                return new Cond("attribute_not_exists(" + ex.p(s.pk()) + ")", i -> !i.containsKey(s.pk()));
            }
            if (kind < 4) {
                return new Cond("attribute_exists(" + ex.p(s.pk()) + ")", i -> i.containsKey(s.pk()));
            }
            return condition(ex, s, true, 0);
        }

        /** Only S, N and B literals may be ordered ({@code <}, ...); others are a ValidationException. */
        static boolean orderable(AttributeValue v) {
            return v instanceof AttributeValue.S || v instanceof AttributeValue.N || v instanceof AttributeValue.B;
        }

        Cond condition(Ex ex, Schema s, boolean keys, int depth) {
            int kind = random.nextInt(depth < 2 ? 15 : 11);
            if (kind >= 11) {
                Cond a = condition(ex, s, keys, depth + 1);
                if (kind == 11) {
                    return new Cond("NOT (" + a.text() + ")", i -> !a.test().test(i));
                }
                Cond b = condition(ex, s, keys, depth + 1);
                return kind == 12
                        ? new Cond("(" + a.text() + ") OR (" + b.text() + ")", i -> a.test().test(i) || b.test().test(i))
                        : new Cond("(" + a.text() + ") AND (" + b.text() + ")", i -> a.test().test(i) && b.test().test(i));
            }
            List<String> comparable = new ArrayList<>(List.of("n", "count", "s", "m.a", "lst[0]", "bin"));
            if (keys) {
                comparable.add(s.pk());
                if (s.sk() != null) {
                    comparable.add(s.sk());
                }
            }
            String path = pick(comparable);
            String op = pick(COMPARATORS);
            switch (kind) {
                case 0, 1 -> {
                    List<String> any = new ArrayList<>(comparable);
                    any.addAll(List.of("tags", "nums", "lst", "lst[1]", "m", "flag", "nil"));
                    String p = pick(any);
                    boolean exists = kind == 0;
                    return new Cond((exists ? "attribute_exists(" : "attribute_not_exists(") + ex.path(p) + ")",
                            i -> (path(i, p) != null) == exists);
                }
                case 2 -> {
                    AttributeValue v = valueFor(s, path);
                    String o = orderable(v) ? op : pick(List.of("=", "<>")); // ordering a list literal is invalid
                    return new Cond(ex.path(path) + " " + o + " " + ex.v(v), i -> compare(path(i, path), o, v));
                }
                case 3 -> {
                    AttributeValue v = valueFor(s, path);
                    String o = orderable(v) ? op : pick(List.of("=", "<>"));
                    return new Cond(ex.v(v) + " " + o + " " + ex.path(path), i -> compare(v, o, path(i, path)));
                }
                case 4 -> {
                    AttributeValue a = valueFor(s, path);
                    if (order(a, a) == null) {
                        a = number();
                    }
                    AttributeValue b = a instanceof AttributeValue.N ? number()
                            : a instanceof AttributeValue.S ? pick(STRS) : binary();
                    AttributeValue lo = order(a, b) > 0 ? b : a;
                    AttributeValue hi = lo == a ? b : a;
                    return new Cond(ex.path(path) + " BETWEEN " + ex.v(lo) + " AND " + ex.v(hi), i -> {
                        AttributeValue v = path(i, path);
                        return v != null && compare(v, ">=", lo) && compare(v, "<=", hi);
                    });
                }
                case 5 -> {
                    String p = pick(List.of("s", "bin", "m.a", "lst[0]", keys ? s.pk() : "s"));
                    AttributeValue prefix = random.nextBoolean() ? pick(strings("a", "ab", "é", "x", "b", "k1", "ü"))
                            : pick(binaries(new int[] {0}, new int[] {0x7F}, new int[] {0xFF}, new int[] {0, 1}));
                    return new Cond("begins_with(" + ex.path(p) + ", " + ex.v(prefix) + ")",
                            i -> beginsWith(path(i, p), prefix));
                }
                case 6 -> {
                    String p = pick(List.of("s", "tags", "nums", "lst", "m", "bin", "n"));
                    AttributeValue v = AttributeValue.n(random.nextInt(5));
                    return new Cond("size(" + ex.path(p) + ") " + op + " " + ex.v(v), i -> {
                        AttributeValue value = path(i, p);
                        return compare(value == null ? null : size(value), op, v);
                    });
                }
                case 7 -> {
                    String p = pick(List.of("s", "tags", "nums", "lst"));
                    AttributeValue x = switch (random.nextInt(4)) {
                        case 0 -> pick(strings("a", "b", "é", "x", "y"));
                        case 1 -> pick(numbers("1", "2", "1.5", "7"));
                        default -> scalar();
                    };
                    return new Cond("contains(" + ex.path(p) + ", " + ex.v(x) + ")", i -> contains(path(i, p), x));
                }
                case 8 -> {
                    String p = pick(List.of("n", "s", "tags", "nums", "lst", "m", "flag", "nil", "bin", "m.a"));
                    String type = pick(List.of("N", "S", "B", "SS", "NS", "L", "M", "BOOL", "NULL"));
                    return new Cond("attribute_type(" + ex.path(p) + ", " + ex.v(AttributeValue.s(type)) + ")", i -> {
                        AttributeValue v = path(i, p);
                        return v != null && v.type().name().equals(type);
                    });
                }
                case 9 -> {
                    List<AttributeValue> candidates = new ArrayList<>();
                    StringBuilder text = new StringBuilder(ex.path(path)).append(" IN (");
                    for (int k = 1 + random.nextInt(3); k > 0; k--) {
                        AttributeValue v = valueFor(s, path);
                        candidates.add(v);
                        text.append(ex.v(v)).append(k > 1 ? ", " : ")");
                    }
                    return new Cond(text.toString(), i -> {
                        AttributeValue v = path(i, path);
                        return v != null && candidates.contains(v);
                    });
                }
                default -> {
                    return new Cond(ex.path("n") + " " + op + " " + ex.path("count"),
                            i -> compare(i.get("n"), op, i.get("count")));
                }
            }
        }

        /** 1 to 3 actions on distinct top-level attributes, so that no two paths overlap. */
        List<Action> actions(Ex ex, Item before) {
            List<String> attributes = new ArrayList<>(UPDATABLE);
            Collections.shuffle(attributes, random);
            List<Action> actions = new ArrayList<>();
            for (String a : attributes.subList(0, 1 + random.nextInt(3))) {
                actions.add(action(ex, a, before));
            }
            return actions;
        }

        private Action action(Ex ex, String a, Item before) {
            String p = ex.p(a);
            switch (a) {
                case "n", "count" -> {
                    AttributeValue d = number();
                    String other = a.equals("n") ? "count" : "n";
                    return switch (random.nextInt(9)) {
                        case 0 -> set(a, p + " = " + ex.v(d), i -> d);
                        case 1 -> set(a, p + " = " + p + " + " + ex.v(d), i -> arithmetic(required(i.get(a)), d, true));
                        case 2 -> set(a, p + " = " + p + " - " + ex.v(d), i -> arithmetic(required(i.get(a)), d, false));
                        case 3 -> {
                            AttributeValue zero = number();
                            yield set(a, p + " = if_not_exists(" + p + ", " + ex.v(zero) + ") + " + ex.v(d),
                                    i -> arithmetic(i.containsKey(a) ? i.get(a) : zero, d, true));
                        }
                        case 4 -> set(a, p + " = " + ex.v(d) + " - " + ex.p(other),
                                i -> arithmetic(d, required(i.get(other)), false));
                        case 5, 6 -> new Action("ADD", p + " " + ex.v(d), a, i -> add(i.get(a), d));
                        case 7 -> new Action("REMOVE", p, a, i -> null);
                        default -> {
                            AttributeValue set = random.nextBoolean() ? stringSet() : numberSet();
                            yield new Action("ADD", p + " " + ex.v(set), a, i -> add(i.get(a), set));
                        }
                    };
                }
                case "s" -> {
                    AttributeValue v = pick(STRS);
                    String from = pick(List.of("n", "bin", "m", "flag"));
                    return switch (random.nextInt(4)) {
                        case 0 -> set(a, p + " = " + ex.v(v), i -> v);
                        case 1 -> set(a, p + " = if_not_exists(" + p + ", " + ex.v(v) + ")",
                                i -> i.containsKey(a) ? i.get(a) : v);
                        case 2 -> new Action("REMOVE", p, a, i -> null);
                        default -> set(a, p + " = " + ex.p(from), i -> required(i.get(from)));
                    };
                }
                case "lst" -> {
                    AttributeValue l = list();
                    int index = random.nextInt(4);
                    // a long list only shrinks or is replaced, so that lists stay small
                    boolean isLong = before != null && before.get(a) instanceof AttributeValue.L old && old.values().size() > 8;
                    return switch (isLong ? 4 + random.nextInt(3) : random.nextInt(7)) {
                        case 0 -> set(a, p + " = list_append(" + p + ", " + ex.v(l) + ")",
                                i -> listAppend(required(i.get(a)), l));
                        case 1 -> set(a, p + " = list_append(" + ex.v(l) + ", " + p + ")",
                                i -> listAppend(l, required(i.get(a))));
                        case 2 -> set(a, p + " = list_append(if_not_exists(" + p + ", " + ex.v(AttributeValue.l()) + "), "
                                + ex.v(l) + ")", i -> listAppend(i.containsKey(a) ? i.get(a) : AttributeValue.l(), l));
                        case 3 -> {
                            AttributeValue v = scalar();
                            yield set(a, p + "[" + index + "] = " + ex.v(v), i -> setElement(i.get(a), index, v));
                        }
                        case 4 -> new Action("REMOVE", p + "[" + index + "]", a,
                                i -> i.isEmpty() ? null : removeElement(i.get(a), index)); // ignored on an absent item
                        case 5 -> new Action("REMOVE", p, a, i -> null);
                        default -> set(a, p + " = " + ex.v(l), i -> l);
                    };
                }
                case "tags", "nums" -> {
                    boolean strings = a.equals("tags");
                    AttributeValue own = strings ? stringSet() : numberSet();
                    AttributeValue operand = random.nextInt(10) == 0 ? (strings ? numberSet() : number()) : own;
                    return switch (random.nextInt(5)) {
                        case 0, 1 -> new Action("ADD", p + " " + ex.v(operand), a, i -> add(i.get(a), operand));
                        case 2 -> {
                            AttributeValue removed = operand instanceof AttributeValue.N ? own : operand;
                            yield new Action("DELETE", p + " " + ex.v(removed), a, i -> delete(i.get(a), removed));
                        }
                        case 3 -> new Action("REMOVE", p, a, i -> null);
                        default -> set(a, p + " = " + ex.v(own), i -> own);
                    };
                }
                default -> {
                    AttributeValue b = AttributeValue.bool(random.nextBoolean());
                    return switch (random.nextInt(3)) {
                        case 0 -> set(a, p + " = " + ex.v(b), i -> b);
                        case 1 -> set(a, p + " = if_not_exists(" + p + ", " + ex.v(b) + ")",
                                i -> i.containsKey(a) ? i.get(a) : b);
                        default -> new Action("REMOVE", p, a, i -> null);
                    };
                }
            }
        }

        private static Action set(String attribute, String text, Function<Map<String, AttributeValue>, AttributeValue> f) {
            return new Action("SET", text, attribute, f);
        }

        /** The actions as an update expression, clauses in a random order. */
        String render(List<Action> actions) {
            List<String> clauses = new ArrayList<>(List.of("SET", "REMOVE", "ADD", "DELETE"));
            Collections.shuffle(clauses, random);
            StringBuilder sb = new StringBuilder();
            for (String clause : clauses) {
                List<String> texts = actions.stream().filter(x -> x.clause().equals(clause)).map(Action::text).toList();
                if (!texts.isEmpty()) {
                    sb.append(sb.isEmpty() ? "" : " ").append(clause).append(' ').append(String.join(", ", texts));
                }
            }
            return sb.toString();
        }

        /** 1 to 4 projected paths, none overlapping another. */
        List<String> projection(Schema s) {
            List<String> candidates = new ArrayList<>(List.of("n", "count", "s", "tags", "nums", "flag", "nil", "bin", s.pk()));
            if (s.sk() != null) {
                candidates.add(s.sk());
            }
            candidates.add(random.nextBoolean() ? "lst" : "lst[" + random.nextInt(3) + "]");
            candidates.add(random.nextBoolean() ? "m" : "m.a");
            Collections.shuffle(candidates, random);
            List<String> paths = new ArrayList<>(candidates.subList(0, 1 + random.nextInt(4)));
            if (paths.contains("lst[0]") || paths.contains("lst[1]") || paths.contains("lst[2]")) {
                if (random.nextBoolean()) {
                    paths.add("lst[3]"); // two elements of one list
                }
            }
            return paths;
        }

        <T> T pick(List<T> list) {
            return list.get(random.nextInt(list.size()));
        }

        static List<AttributeValue> strings(String... values) {
            return Arrays.stream(values).map(AttributeValue::s).toList();
        }

        static List<AttributeValue> numbers(String... values) {
            return Arrays.stream(values).map(AttributeValue::n).toList();
        }

        static List<AttributeValue> binaries(int[]... values) {
            List<AttributeValue> out = new ArrayList<>();
            for (int[] v : values) {
                byte[] b = new byte[v.length];
                for (int i = 0; i < v.length; i++) {
                    b[i] = (byte) v[i];
                }
                out.add(AttributeValue.b(b));
            }
            return out;
        }
    }
}
