package dev.lacuna.semantics;

import dev.lacuna.AttributeValue;
import dev.lacuna.BatchGetItem;
import dev.lacuna.BatchWriteItem;
import dev.lacuna.ConditionCheck;
import dev.lacuna.Database;
import dev.lacuna.DeleteItem;
import dev.lacuna.ExpressionRequest;
import dev.lacuna.GetItem;
import dev.lacuna.IdempotentParameterMismatchException;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.ResourceInUseException;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.Scan;
import dev.lacuna.Select;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.Tag;
import dev.lacuna.TransactGet;
import dev.lacuna.TransactWrite;
import dev.lacuna.TransactionCanceledException;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import static dev.lacuna.AttributeValue.b;
import static dev.lacuna.AttributeValue.bool;
import static dev.lacuna.AttributeValue.bs;
import static dev.lacuna.AttributeValue.l;
import static dev.lacuna.AttributeValue.m;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.ns;
import static dev.lacuna.AttributeValue.nul;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.AttributeValue.ss;

import dev.lacuna.AttributeValue.Type;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * The corpus of {@link BadInputCorpusTest}: the tables and items every case runs against, and the invalid
 * requests, each with the exception DynamoDB answers it with. The groups follow SEMANTICS.md ("Limits and
 * validation", "Expressions") and the API reference's errors for queries, batches, transactions and tables.
 * Every request is built inside its lambda, so one that fails while being built (a number of 39 digits,
 * {@code limit(0)}) is attributed to its case.
 */
final class BadInputCases {
    /** One invalid request: what it is, what it must throw, and a part of the message (null: not checked). */
    record BadInput(String description, Class<? extends RuntimeException> expected, String fragment,
                    Consumer<Database> request) {
    }

    static final String SIMPLE = "Simple";       // pk S
    static final String COMPOSITE = "Composite"; // pk S, sk S
    static final String NUMBERED = "Numbered";   // pk S, seq N
    static final String INDEXED = "Indexed";     // pk S, sk S; GSI1 on GSI1PK/GSI1SK (S), LSI1 on prio (N)
    static final String TOKEN = "token-1";       // the client request token of the fixture's transaction

    private static final Key S1 = Key.of("pk", s("s#1"));
    private static final Key BIG = Key.of("pk", s("s#big"));
    private static final Key MAX = Key.of("pk", s("s#max"));
    private static final Key C1A = Key.of("pk", s("c#1"), "sk", s("a"));
    private static final Key I1 = Key.of("pk", s("i#1"), "sk", s("1"));
    private static final String MAX_DIGITS = "9".repeat(38);
    private static final String MAX_NUMBER = "9.9999999999999999999999999999999999999E+125";
    private static final String INVALID_PATH = "The document path provided in the update expression is invalid for update";
    private static final String EMPTY_STRING_KEY = "One or more parameter values are not valid. The AttributeValue for a"
            + " key attribute cannot contain an empty string value. Key: ";

    private final List<BadInput> cases = new ArrayList<>();

    /** Creates the four tables and their items, and commits one transaction with {@link #TOKEN}. */
    static void populate(Database db) {
        db.createTable(TableSpec.builder(SIMPLE).partitionKey("pk", Type.S).build());
        db.createTable(TableSpec.builder(COMPOSITE).partitionKey("pk", Type.S).sortKey("sk", Type.S).build());
        db.createTable(TableSpec.builder(NUMBERED).partitionKey("pk", Type.S).sortKey("seq", Type.N).build());
        db.createTable(TableSpec.builder(INDEXED).partitionKey("pk", Type.S).sortKey("sk", Type.S)
                .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK")))
                .index(IndexSpec.local("LSI1", KeyAttribute.n("prio"))).build());
        Table simple = db.table(SIMPLE);
        simple.putItem(Item.builder().s("pk", "s#1").s("str", "hello").n("num", 5).put("lst", l(n(1), s("x")))
                .put("info", m(Map.of("a", n(1), "b", m(Map.of("c", s("d")))))).put("tags", ss("red", "blue"))
                .put("nums", ns("1", "2")).s("note", "n").b("bin", new byte[] {1, 2}).build());
        for (int i = 2; i <= 9; i++) {
            simple.putItem(Item.builder().s("pk", "s#" + i).n("num", i).build());
        }
        simple.putItem(Item.builder().s("pk", "s#max").n("digits", MAX_DIGITS).n("huge", MAX_NUMBER).build());
        simple.putItem(Item.builder().s("pk", "s#big").s("filler", "f".repeat(300_000)).build());
        for (String sk : List.of("a", "b", "c", "d", "e")) {
            db.table(COMPOSITE).putItem(Item.builder().s("pk", "c#1").s("sk", sk).s("note", "n-" + sk).build());
        }
        db.table(COMPOSITE).putItem(Item.builder().s("pk", "c#2").s("sk", "x").build());
        for (int seq = 1; seq <= 12; seq++) {
            db.table(NUMBERED).putItem(Item.builder().s("pk", "n#1").n("seq", seq).s("note", "v").build());
        }
        for (int i = 1; i <= 3; i++) {
            db.table(INDEXED).putItem(Item.builder().s("pk", "i#1").s("sk", "" + i).s("GSI1PK", "G#1")
                    .s("GSI1SK", "x" + i).n("prio", i).build());
        }
        db.transactWriteItems(List.of(tokenPut("first")), TOKEN);
        List<Tag> fifty = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            fifty.add(new Tag("tag" + i, "v"));
        }
        db.tagResource(SIMPLE, fifty); // full: one more is refused
        db.updateTimeToLive(COMPOSITE, "expiresAt", true); // no item has it: nothing expires
    }

    /** The put of the fixture's transaction with {@link #TOKEN}, with {@code value} as its attribute. */
    private static TransactWrite tokenPut(String value) {
        return new TransactWrite(SIMPLE, new PutItem(Item.builder().s("pk", "s#tx").s("note", value).build()));
    }

    /** Every case. */
    List<BadInput> all() {
        cases.clear();
        itemsAndSizes();
        keys();
        numbersAndSets();
        indexKeys();
        conditions();
        updates();
        projections();
        keyConditions();
        filters();
        queryAndScanOptions();
        batches();
        transactions();
        tables();
        tagsAndTimeToLive();
        unknownTables();
        return List.copyOf(cases);
    }

    // ---- the groups

    private void itemsAndSizes() {
        invalid("put: an item over 400 KB in one string", "Item size",
                put(SIMPLE, () -> Item.builder().s("pk", "s#new").s("str", "x".repeat(410_000)).build()));
        invalid("put: an item over 400 KB counting its attribute names", "Item size", db -> {
            Item.Builder item = Item.builder().s("pk", "s#new");
            for (int i = 0; i < 7; i++) {
                item.s(i + "a".repeat(60_000), "v"); // 7 names of 60 KB: 420 KB of names, 7 bytes of values
            }
            db.putItem(SIMPLE, new PutItem(item.build()));
        });
        invalid("put: an item over 400 KB in one binary", "Item size",
                put(SIMPLE, () -> Item.builder().s("pk", "s#new").b("bin", new byte[410_000]).build()));
        // Naming rules: an attribute name is at least one character and less than 64 KB.
        invalid("put: an attribute name over 64 KB", put(SIMPLE,
                () -> Item.builder().s("pk", "s#new").s("n".repeat(65_537), "v").build()));
        invalid("update: copying a 300 KB attribute makes the item 600 KB", "Item size",
                update(BIG, "SET twin = filler"));
        invalid("update: creating an absent item over 400 KB", "Item size",
                update(Key.of("pk", s("s#new")), "SET str = :v", ":v", s("x".repeat(410_000))));
        invalid("put: a value nested 33 levels deep", "Nesting",
                put(SIMPLE, () -> Item.builder().s("pk", "s#new").put("deep", nested(33)).build()));
        invalid("update: setting a value nested 33 levels deep", "Nesting",
                update(S1, "SET deep = :d", ":d", nested(33)));
        invalid("put: the item lacks the partition key", "Missing the key",
                put(SIMPLE, () -> Item.builder().s("str", "x").build()));
        invalid("put: the item lacks the sort key", "Missing the key",
                put(COMPOSITE, () -> Item.builder().s("pk", "c#9").build()));
        invalid("put: an empty attribute name", put(SIMPLE, () -> Item.builder().s("pk", "s#new").s("", "x").build()));
        invalid("put: partition key of type N in an S table", "Type mismatch",
                put(SIMPLE, () -> Item.builder().n("pk", 1).build()));
        invalid("put: sort key of type S in an N sort key", "Type mismatch",
                put(NUMBERED, () -> Item.builder().s("pk", "n#1").s("seq", "1").build()));
        invalid("put: empty string partition key", EMPTY_STRING_KEY + "pk",
                put(SIMPLE, () -> Item.builder().s("pk", "").build()));
        invalid("put: empty string sort key", EMPTY_STRING_KEY + "sk",
                put(COMPOSITE, () -> Item.builder().s("pk", "c#1").s("sk", "").build()));
        invalid("put: partition key of 2049 bytes", "2048",
                put(SIMPLE, () -> Item.builder().s("pk", "p".repeat(2049)).build()));
        invalid("put: partition key of 1025 two-byte characters (2050 bytes)", "2048",
                put(SIMPLE, () -> Item.builder().s("pk", "é".repeat(1025)).build()));
        invalid("put: sort key of 342 three-byte characters (1026 bytes)", "1024",
                put(COMPOSITE, () -> Item.builder().s("pk", "c#1").s("sk", "€".repeat(342)).build()));
    }

    private void keys() {
        invalid("get: partition key of type N", "Type mismatch", get(SIMPLE, () -> Key.of("pk", n(1))));
        invalid("get: key without the sort key", "does not match the schema",
                get(COMPOSITE, () -> Key.of("pk", s("c#1"))));
        invalid("get: key with a sort key the table does not have", "does not match the schema",
                get(SIMPLE, () -> Key.of("pk", s("s#1"), "sk", s("x"))));
        invalid("get: key with a wrongly named sort key", "does not match the schema",
                get(COMPOSITE, () -> Key.of("pk", s("c#1"), "other", s("a"))));
        invalid("delete: partition key of type B", "Type mismatch",
                db -> db.deleteItem(SIMPLE, new DeleteItem(Key.of("pk", b(new byte[] {1})))));
        invalid("update: key without the sort key", "does not match the schema",
                update(COMPOSITE, Key.of("pk", s("c#1")), "SET note = :v", ":v", s("x")));
        invalid("delete: key with an extra attribute", "does not match the schema",
                db -> db.deleteItem(SIMPLE, new DeleteItem(Key.of("pk", s("s#1"), "extra", s("x")))));
        invalid("get: key with three attributes", db -> db.getItem(COMPOSITE,
                new GetItem(Key.builder().s("pk", "c#1").s("sk", "a").s("extra", "x").build())));
        invalid("get: empty string partition key", EMPTY_STRING_KEY + "pk", get(SIMPLE, () -> Key.of("pk", s(""))));
        invalid("get: partition key of type BOOL", get(SIMPLE, () -> Key.of("pk", bool(true))));
        invalid("get: sort key of type NULL", get(COMPOSITE, () -> Key.of("pk", s("c#1"), "sk", nul())));
        invalid("get: partition and sort key with one name",
                get(COMPOSITE, () -> Key.of("pk", s("c#1"), "pk", s("a"))));
    }

    private void numbersAndSets() {
        invalid("a number of 39 significant digits", "38", putValue(() -> n("1" + "2".repeat(37) + "3")));
        invalid("a number above 9.99…E+125", "Number overflow. Attempting to store a number with magnitude larger than"
                + " supported range", putValue(() -> n("1E+126")));
        invalid("a number below 1E-130 in magnitude", "Number underflow. Attempting to store a number with magnitude"
                + " smaller than supported range", putValue(() -> n("1E-131")));
        invalid("a number that is not one", putValue(() -> n("abc")));
        invalid("a number NaN", putValue(() -> n("NaN")));
        invalid("a number set with a 39-digit element", putValue(() -> ns("1", "9".repeat(39))));
        invalid("an empty string set", putValue(AttributeValue::ss));
        invalid("an empty number set", putValue(AttributeValue::ns));
        invalid("a string set with a duplicate", putValue(() -> ss("a", "a")));
        invalid("a number set with 1 and 1.0", putValue(() -> ns("1", "1.0")));
        invalid("update: a sum of 39 significant digits", update(MAX, "SET digits = digits + :d", ":d", n("0.1")));
        invalid("update: a sum above 9.99…E+125", "Number overflow", update(MAX, "SET huge = huge + huge"));
        invalid("update: a difference below -9.99…E+125", "Number overflow",
                update(MAX, "SET huge = :neg - huge", ":neg", n("-" + MAX_NUMBER)));
        invalid("update: ADD making 39 significant digits", update(MAX, "ADD digits :d", ":d", n("0.1")));
    }

    private void indexKeys() {
        Item base = Item.builder().s("pk", "i#1").s("sk", "9").build();
        invalid("put: GSI partition key of type N", "GSI1", put(INDEXED, () -> base.with("GSI1PK", n(1))));
        invalid("put: GSI sort key an empty string", "GSI1", put(INDEXED, () -> base.with("GSI1SK", s(""))));
        invalid("put: GSI partition key NULL", "GSI1", put(INDEXED, () -> base.with("GSI1PK", nul())));
        invalid("put: LSI sort key of type S", "LSI1", put(INDEXED, () -> base.with("prio", s("1"))));
        invalid("update: SET GSI partition key to a number", "GSI1",
                update(INDEXED, I1, "SET GSI1PK = :n", ":n", n(1)));
        invalid("update: SET GSI sort key to an empty string", "GSI1",
                update(INDEXED, I1, "SET GSI1SK = :e", ":e", s("")));
        invalid("batch write: GSI sort key of type M", "GSI1", db -> db.batchWriteItem(new BatchWriteItem()
                .put(INDEXED, base.with("GSI1SK", m(Map.of("a", n(1)))))));
        invalid("transaction: put with an LSI sort key of type S", "LSI1", db -> db.transactWriteItems(List.of(
                new TransactWrite(INDEXED, new PutItem(base.with("prio", s("high")))))));
    }

    private void conditions() {
        invalid("condition: empty", condition(""));
        invalid("condition: comparison without a right operand", "Syntax error", condition("num =", ":v", n(1)));
        invalid("condition: ==", "Syntax error", condition("num == :v", ":v", n(1)));
        invalid("condition: unclosed parenthesis", "Syntax error", condition("(num = :v", ":v", n(1)));
        invalid("condition: BETWEEN without AND", "Syntax error", condition("num BETWEEN :v", ":v", n(1)));
        invalid("condition: IN with no operands", "Syntax error", condition("num IN ()"));
        invalid("condition: unclosed function call", "Syntax error", condition("attribute_exists(num"));
        invalid("condition: attribute_exists of a value", "document path",
                condition("attribute_exists(:v)", ":v", n(1)));
        invalid("condition: attribute_exists with two operands", "number of operands",
                condition("attribute_exists(num, str)"));
        invalid("condition: unknown function", "Invalid function name", condition("no_such_function(num)"));
        invalid("condition: function name in the wrong case", "Invalid function name",
                condition("Attribute_Exists(num)"));
        invalid("condition: size() alone", "not allowed to be used this way", condition("size(str)"));
        invalid("condition: if_not_exists", "not allowed", condition("if_not_exists(num, :v) = :v", ":v", n(1)));
        invalid("condition: quoted string literal", "Syntax error", condition("str = 'hello'"));
        invalid("condition: redundant parentheses", "redundant parentheses", condition("((num = :v))", ":v", n(1)));
        invalid("condition: reserved word status", "reserved keyword", condition("status = :v", ":v", s("x")));
        invalid("condition: reserved word in a nested path", "reserved keyword",
                condition("info.name = :v", ":v", s("x")));
        invalid("condition: undefined name placeholder", "not defined", condition("#missing = :v", ":v", n(1)));
        invalid("condition: undefined value placeholder", "not defined", condition("num = :missing"));
        invalid("condition: unused value placeholder", "unused",
                condition("num = :v", ":v", n(5), ":unused", n(1)));
        invalid("condition: unused name placeholder", "unused", condition("num = :v", ":v", n(5), "#unused", "num"));
        invalid("condition: attribute_type with an unknown type", "Invalid attribute type name",
                condition("attribute_type(num, :t)", ":t", s("STRING")));
        invalid("condition: begins_with a number", "operand type", condition("begins_with(str, :n)", ":n", n(1)));
        invalid("condition: BETWEEN bounds reversed", "upper bound",
                condition("num BETWEEN :hi AND :lo", ":hi", n(10), ":lo", n(9)));
        invalid("condition: BETWEEN bounds of two types", "same data type",
                condition("num BETWEEN :lo AND :hi", ":lo", n(1), ":hi", s("9")));
        invalid("condition: contains with one operand twice", "distinct", condition("contains(str, str)"));
        invalid("condition: over 4 KB", "Expression size has exceeded the maximum allowed size; expression size: 4106",
                condition("n" + "x".repeat(4100) + " = :v", ":v", n(1)));
        invalid("condition: over 4 KB in UTF-8 bytes, not chars", "size has exceeded",
                condition("num = :v " + "é".repeat(2100), ":v", n(1))); // 2109 chars, 4209 bytes
        invalid("condition: 301 operators", "too many operators",
                condition(String.join(" OR ", Collections.nCopies(151, "num = :v")), ":v", n(1)));
        // DynamoDB bounds nesting only by the size and the operator count: 300 NOTs and a comparison are 301 operators.
        invalid("condition: 300 nested NOTs", "too many operators; operator count: 301",
                condition("NOT ".repeat(300) + "num = :v", ":v", n(1)));
        invalid("condition: 151 nested parentheses", "too many operators", condition(parenthesised(151), ":v", n(1)));
        invalid("condition: 2000 unclosed parentheses", "Syntax error; token: \"<EOF>\"",
                condition("(".repeat(2000) + "num = :v", ":v", n(1)));
        invalid("condition: 2040 redundant parentheses", "redundant parentheses",
                condition("(".repeat(2040) + "num = :v" + ")".repeat(2040), ":v", n(1)));
        invalid("condition: a path of 33 elements", "nesting levels",
                condition("attribute_exists(a" + ".b".repeat(32) + ")"));
        invalid("condition: IN with 101 operands", "too many operands; number of operands: 101",
                condition("num IN (" + String.join(", ", Collections.nCopies(101, ":v")) + ")", ":v", n(1)));
        invalid("condition: list index beyond 32 bits", "List index is not within the allowable range",
                condition("lst[99999999999] = :v", ":v", n(1)));
        invalid("condition: size of a number value", "operator or function: size, operand type: N",
                condition("size(:v) > :n", ":v", n(5), ":n", n(1)));
        invalid("condition: a name starting with an underscore", "Syntax error; token: \"_\", near: \"_num\"",
                condition("_num = :v", ":v", n(5)));
        invalid("condition: a function name starting with an underscore", "Syntax error; token: \"_\"",
                condition("_attribute_exists(num)"));
        invalid("condition: a name starting with a digit", "Syntax error; token: \"1\"", condition("1num = :v", ":v", n(5)));
        invalid("condition: a path compared with itself", "first operand must be distinct", condition("num = num"));
        invalid("condition: attribute_exists compared with a value", "not allowed to be used this way",
                condition("attribute_exists(num) = :v", ":v", bool(true)));
        invalid("condition: begins_with of a number value", "operator or function: begins_with, operand type: N",
                condition("begins_with(:n, str)", ":n", n(1)));
        invalid("value placeholder without a colon", "invalid key",
                db -> db.deleteItem(SIMPLE, new DeleteItem(S1).condition("num = :v").value(":v", n(5))
                        .value("v", n(5))));
        invalid("name placeholder standing for an empty name", "Empty attribute name",
                condition("#n = :v", "#n", "", ":v", n(5)));
        invalid("value placeholder of 256 bytes", "longer than",
                condition("num = :" + "v".repeat(255), ":" + "v".repeat(255), n(5)));
        invalid("delete: placeholders without any expression", "unused",
                db -> db.deleteItem(SIMPLE, new DeleteItem(S1).value(":v", n(5))));
    }

    private void updates() {
        invalid("update: empty", update(S1, ""));
        invalid("update: SET alone", "Syntax error", update(S1, "SET"));
        invalid("update: SET without a value", "Syntax error", update(S1, "SET num ="));
        invalid("update: unknown clause", "Syntax error", update(S1, "UPDATE num = :v", ":v", n(1)));
        invalid("update: SET twice", "only be used once", update(S1, "SET num = :v SET str = :v", ":v", n(1)));
        invalid("update: REMOVE a value", "Syntax error", update(S1, "REMOVE :v", ":v", n(1)));
        invalid("update: ADD a path", "Syntax error", update(S1, "ADD num str"));
        invalid("update: list_append with one operand", "number of operands",
                update(S1, "SET lst = list_append(:l)", ":l", l(n(1))));
        invalid("update: if_not_exists of a value", "document path",
                update(S1, "SET num = if_not_exists(:v, :v)", ":v", n(1)));
        invalid("update: size() in SET", "not allowed", update(S1, "SET num = size(str)"));
        invalid("update: unknown function", "Invalid function name", update(S1, "SET num = foo(str)"));
        invalid("update: + on a string", "operand type", update(S1, "SET num = :s + :n", ":s", s("a"), ":n", n(1)));
        invalid("update: list_append of a string", "operand type",
                update(S1, "SET lst = list_append(:s, lst)", ":s", s("a")));
        invalid("update: ADD a string", "operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND",
                update(S1, "ADD str :s", ":s", s("a")));
        invalid("update: DELETE a number", "operand type", update(S1, "DELETE tags :n", ":n", n(1)));
        invalid("update: SET and REMOVE one path", "overlap", update(S1, "SET str = :v REMOVE str", ":v", s("x")));
        invalid("update: SET a map and its member", "overlap",
                update(S1, "SET info = :v, info.a = :w", ":v", m(Map.of()), ":w", n(2)));
        invalid("update: a list element and a map member of one path", "conflict",
                update(S1, "SET lst[0] = :v, lst.a = :w", ":v", n(1), ":w", n(2)));
        invalid("update: ADD and DELETE one set", "overlap",
                update(S1, "ADD tags :t DELETE tags :t", ":t", ss("green")));
        invalid("update: SET the partition key", "part of the key", update(S1, "SET pk = :v", ":v", s("s#9")));
        invalid("update: REMOVE the sort key", "part of the key", update(COMPOSITE, C1A, "REMOVE sk"));
        invalid("update: ADD to a numeric sort key", "part of the key",
                update(NUMBERED, Key.of("pk", s("n#1"), "seq", n(1)), "ADD seq :one", ":one", n(1)));
        invalid("update: SET the partition key through a placeholder", "part of the key",
                update(S1, "SET #k = :v", "#k", "pk", ":v", s("s#9")));
        invalid("update: reserved word name", "reserved keyword", update(S1, "SET name = :v", ":v", s("x")));
        invalid("update: undefined name placeholder", "not defined", update(S1, "SET #missing = :v", ":v", n(1)));
        invalid("update: unused value placeholder", "unused", update(S1, "SET num = :v", ":v", n(1), ":w", n(2)));
        invalid("update: over 4 KB", "size has exceeded", update(S1, "SET n" + "x".repeat(4100) + " = :v", ":v", n(1)));
        invalid("update: 301 operators", "too many operators; operator count: 301", update(S1, "SET "
                + String.join(",", IntStream.range(0, 301).mapToObj(i -> "a" + i + "=:o+:o").toList()), ":o", n(1)));
        // DynamoDB's SET value is one operand, or two joined by a single + or -; function arguments are operands.
        invalid("update: three operands of +", "Syntax error; token: \"+\", near: \":one + :one\"",
                update(S1, "SET num = num + :one + :one", ":one", n(1)));
        invalid("update: + and - in one value", "Syntax error; token: \"-\"",
                update(S1, "SET num = num + :one - :one", ":one", n(1)));
        invalid("update: + inside if_not_exists", "Syntax error; token: \"+\"",
                update(S1, "SET num = if_not_exists(num, :one + :one)", ":one", n(1)));
        invalid("update: - inside list_append", "Syntax error; token: \"-\"",
                update(S1, "SET lst = list_append(lst, :l - :l)", ":l", l(n(1))));
        invalid("update: a parenthesised + as an operand of +", "Syntax error; token: \"+\"",
                update(S1, "SET num = num + (:one + :one)", ":one", n(1)));
        invalid("update: parentheses twice over a value", "redundant parentheses",
                update(S1, "SET num = ((:one))", ":one", n(1)));
        invalid("update: list_append inside list_append", "used this way in an expression; function: list_append",
                update(S1, "SET lst = list_append(list_append(lst, :l), :l)", ":l", l(n(1))));
        invalid("update: list_append in an addition", "used this way in an expression; function: list_append",
                update(S1, "SET num = list_append(lst, :l) + :one", ":l", l(n(1)), ":one", n(1)));
        invalid("update: a name starting with an underscore", "Syntax error; token: \"_\", near: \"SET _new\"",
                update(S1, "SET _new = :v", ":v", n(1)));
        invalid("update: a function name starting with an underscore", "Syntax error; token: \"_\", near: \"= _f\"",
                update(S1, "SET num = _f(num)"));
        // REMOVE needs the path up to its last step, as SET does: a map before .name, a list before [i].
        invalid("update: REMOVE a member of a string attribute", INVALID_PATH, update(S1, "REMOVE str.c"));
        invalid("update: REMOVE a member of a list attribute", INVALID_PATH, update(S1, "REMOVE lst.c"));
        invalid("update: REMOVE a member of an absent attribute", INVALID_PATH, update(S1, "REMOVE ghost.a"));
        invalid("update: REMOVE an element of a map", INVALID_PATH, update(S1, "REMOVE info[0]"));
        invalid("update: REMOVE an element of a string set", INVALID_PATH, update(S1, "REMOVE tags[0]"));
        invalid("update: REMOVE below a list element past the end", INVALID_PATH, update(S1, "REMOVE lst[9].a"));
        invalid("update: SET with an invalid REMOVE", INVALID_PATH,
                update(S1, "SET num = :v REMOVE info.b.c.d", ":v", n(42)));
        invalid("update: + on a string attribute", update(S1, "SET str = str + :one", ":one", n(1)));
        invalid("update: ADD a number to a string attribute", update(S1, "ADD str :one", ":one", n(1)));
        invalid("update: DELETE numbers from a string set", update(S1, "DELETE tags :ns", ":ns", ns("1")));
        invalid("update: SET a member of an absent map", update(S1, "SET ghost.a = :v", ":v", n(1)));
        invalid("update: SET from an absent attribute", update(S1, "SET num = ghost"));
    }

    private void projections() {
        invalid("projection: empty", projection(""));
        invalid("projection: trailing comma", "Syntax error", projection("str,"));
        invalid("projection: one path twice", "overlap", projection("str, str"));
        invalid("projection: a map and its member", "overlap", projection("info, info.a"));
        invalid("projection: a list element and a map member", "conflict", projection("lst[0], lst.a"));
        invalid("projection: reserved word name", "reserved keyword", projection("name"));
        invalid("projection: undefined name placeholder", "not defined", projection("#missing"));
        invalid("projection: unused name placeholder", "unused", projection("str", "#n", "num"));
        invalid("projection: a function", projection("size(str)"));
        invalid("projection: over 4 KB", "size has exceeded",
                projection(String.join(", ", Collections.nCopies(700, "abcdef"))));
        invalid("projection: a path of 33 elements", "nesting levels", projection("a" + ".b".repeat(32)));
        invalid("query projection: two paths without a comma", "Syntax error", db -> db.query(COMPOSITE,
                new Query("pk = :p").value(":p", s("c#1")).projection("pk sk")));
        invalid("batch get: projection with a syntax error", "Syntax error", db -> db.batchGetItem(new BatchGetItem()
                .get(SIMPLE, new GetItem(S1).projection("str,,num"))));
        invalid("transact get: projection with an undefined placeholder", "not defined",
                db -> db.transactGetItems(List.of(new TransactGet(SIMPLE, new GetItem(S1).projection("#x")))));
    }

    private void keyConditions() {
        invalid("key condition: empty", query(COMPOSITE, ""));
        invalid("key condition: OR", "OR", query(COMPOSITE, "pk = :p OR sk = :s", ":p", s("c#1"), ":s", s("a")));
        invalid("key condition: NOT", "NOT", query(COMPOSITE, "NOT pk = :p", ":p", s("c#1")));
        invalid("key condition: IN", "IN", query(COMPOSITE, "pk IN (:p)", ":p", s("c#1")));
        invalid("key condition: < on the partition key", query(COMPOSITE, "pk < :p", ":p", s("c#1")));
        invalid("key condition: begins_with on the partition key",
                query(COMPOSITE, "begins_with(pk, :p)", ":p", s("c")));
        invalid("key condition: only the sort key", "missed key schema element",
                query(COMPOSITE, "sk = :s", ":s", s("a")));
        invalid("key condition: a non-key attribute", "missed key schema element",
                query(COMPOSITE, "pk = :p AND note = :n", ":p", s("c#1"), ":n", s("n-a")));
        invalid("key condition: three conditions", "one condition per key", query(COMPOSITE,
                "pk = :p AND sk = :s AND note = :n", ":p", s("c#1"), ":s", s("a"), ":n", s("n-a")));
        invalid("key condition: two conditions on the partition key", "one condition per key",
                query(COMPOSITE, "pk = :p AND pk = :q", ":p", s("c#1"), ":q", s("c#2")));
        invalid("key condition: <> on the sort key", "<>",
                query(COMPOSITE, "pk = :p AND sk <> :s", ":p", s("c#1"), ":s", s("a")));
        invalid("key condition: contains", "contains",
                query(COMPOSITE, "pk = :p AND contains(sk, :s)", ":p", s("c#1"), ":s", s("a")));
        invalid("key condition: a nested path", "nested", query(COMPOSITE, "pk.a = :p", ":p", s("c#1")));
        invalid("key condition: two values", query(COMPOSITE, ":p = :q", ":p", s("c#1"), ":q", s("c#1")));
        invalid("key condition: two paths", query(COMPOSITE, "pk = sk"));
        invalid("key condition: begins_with a string on a number sort key",
                query(NUMBERED, "pk = :p AND begins_with(seq, :s)", ":p", s("n#1"), ":s", s("1")));
        invalid("key condition: begins_with a number on a number sort key", "begins_with",
                query(NUMBERED, "pk = :p AND begins_with(seq, :n)", ":p", s("n#1"), ":n", n(1)));
        invalid("key condition: BETWEEN 10 AND 9 (numbers, not strings)", "upper bound",
                query(NUMBERED, "pk = :p AND seq BETWEEN :hi AND :lo", ":p", s("n#1"), ":hi", n(10), ":lo", n(9)));
        invalid("key condition: BETWEEN with the string bounds reversed", "upper bound",
                query(COMPOSITE, "pk = :p AND sk BETWEEN :b AND :a", ":p", s("c#1"), ":b", s("b"), ":a", s("a")));
        invalid("key condition: BETWEEN bounds of two types", "same data type",
                query(COMPOSITE, "pk = :p AND sk BETWEEN :a AND :n", ":p", s("c#1"), ":a", s("a"), ":n", n(1)));
        invalid("key condition: partition key value of type N", "type",
                query(COMPOSITE, "pk = :p", ":p", n(1)));
        invalid("key condition: sort key value of type N for an S sort key", "type",
                query(COMPOSITE, "pk = :p AND sk > :s", ":p", s("c#1"), ":s", n(1)));
        invalid("key condition: sort key value of type S for an N sort key", "type",
                query(NUMBERED, "pk = :p AND seq >= :s", ":p", s("n#1"), ":s", s("1")));
        invalid("key condition: partition key value of type BOOL", "type",
                query(COMPOSITE, "pk = :p", ":p", bool(true)));
        invalid("key condition: empty partition key value", EMPTY_STRING_KEY + "pk",
                query(COMPOSITE, "pk = :p", ":p", s("")));
        invalid("key condition: empty sort key value",
                query(COMPOSITE, "pk = :p AND sk = :s", ":p", s("c#1"), ":s", s("")));
        invalid("key condition: a sort key condition on a table without one",
                query(SIMPLE, "pk = :p AND sk = :s", ":p", s("s#1"), ":s", s("a")));
        invalid("key condition: unknown function", "Invalid function name",
                query(COMPOSITE, "pk = :p AND starts_with(sk, :s)", ":p", s("c#1"), ":s", s("a")));
        invalid("key condition: over 4 KB", "size has exceeded",
                query(COMPOSITE, "pk = :p" + " ".repeat(4100), ":p", s("c#1")));
        invalid("key condition: unused value placeholder", "unused",
                query(COMPOSITE, "pk = :p", ":p", s("c#1"), ":q", s("x")));
        invalid("key condition: reserved word", "reserved keyword",
                query(COMPOSITE, "pk = :p AND begins_with(data, :s)", ":p", s("c#1"), ":s", s("a")));
    }

    private void filters() {
        invalid("query filter: the sort key", "primary key", db -> db.query(COMPOSITE,
                new Query("pk = :p").value(":p", s("c#1")).filter("sk = :x").value(":x", s("a"))));
        invalid("query filter: the sort key through a placeholder", "primary key", db -> db.query(COMPOSITE,
                new Query("pk = :p").value(":p", s("c#1")).filter("#k = :x").name("#k", "sk").value(":x", s("a"))));
        invalid("query filter: the sort key inside OR", "primary key", db -> db.query(COMPOSITE,
                new Query("pk = :p").value(":p", s("c#1")).filter("note = :x OR begins_with(sk, :x)")
                        .value(":x", s("a"))));
        invalid("query filter: the number sort key", "primary key", db -> db.query(NUMBERED,
                new Query("pk = :p").value(":p", s("n#1")).filter("seq > :n").value(":n", n(3))));
        invalid("query select: all projected attributes of a table", "only when Querying using an IndexName",
                db -> db.query(COMPOSITE, new Query("pk = :p").value(":p", s("c#1"))
                        .select(Select.ALL_PROJECTED_ATTRIBUTES)));
        invalid("query select: specific attributes without a projection", "SPECIFIC_ATTRIBUTES",
                db -> db.query(COMPOSITE, new Query("pk = :p").value(":p", s("c#1")).select(Select.SPECIFIC_ATTRIBUTES)));
        invalid("query select: all attributes and a projection", "when choosing to get ALL_ATTRIBUTES",
                db -> db.query(COMPOSITE, new Query("pk = :p").value(":p", s("c#1")).select(Select.ALL_ATTRIBUTES)
                        .projection("sk")));
        invalid("scan select: all projected attributes of a table", "only when Querying using an IndexName",
                db -> db.scan(COMPOSITE, new Scan().select(Select.ALL_PROJECTED_ATTRIBUTES)));
        invalid("scan filter: syntax error", "Syntax error", filter("num >"));
        invalid("scan filter: unknown function", "Invalid function name", filter("exists(num)"));
        invalid("scan filter: reserved word count", "reserved keyword", filter("count > :n", ":n", n(1)));
        invalid("scan filter: list_append", "not allowed", filter("list_append(lst, lst) = :l", ":l", l()));
        invalid("scan filter: unused value placeholder", "unused", filter("num > :n", ":n", n(1), ":m", n(2)));
    }

    private void queryAndScanOptions() {
        invalid("query: COUNT with a projection", "COUNT", db -> db.query(COMPOSITE,
                new Query("pk = :p").value(":p", s("c#1")).count().projection("note")));
        invalid("scan: COUNT with a projection", "COUNT", db -> db.scan(SIMPLE, new Scan().count().projection("num")));
        invalid("query: limit 0", "Limit",
                db -> db.query(COMPOSITE, new Query("pk = :p").value(":p", s("c#1")).limit(0)));
        invalid("scan: limit 0", "Limit", db -> db.scan(SIMPLE, new Scan().limit(0)));
        invalid("scan: segment 2 of 2", "Segment", db -> db.scan(SIMPLE, new Scan().segment(2, 2)));
        invalid("scan: 0 segments", "TotalSegments", db -> db.scan(SIMPLE, new Scan().segment(0, 0)));
        invalid("scan: 1000001 segments", "TotalSegments", db -> db.scan(SIMPLE, new Scan().segment(0, 1_000_001)));
        invalid("query: start key without the sort key", "starting key",
                startQuery(Map.of("pk", s("c#1"))));
        invalid("query: start key with an extra attribute", "starting key",
                startQuery(Map.of("pk", s("c#1"), "sk", s("a"), "note", s("n-a"))));
        invalid("query: start key in another partition", "starting key",
                startQuery(Map.of("pk", s("c#2"), "sk", s("x"))));
        invalid("query: start key with a sort key of type N", startQuery(Map.of("pk", s("c#1"), "sk", n(1))));
        invalid("query: empty start key", "starting key", startQuery(Map.of()));
        // DynamoDB: "The provided starting key does not match the range key predicate"
        invalid("query: start key outside the sort key condition", db -> db.query(COMPOSITE,
                new Query("pk = :p AND sk > :b").value(":p", s("c#1")).value(":b", s("c"))
                        .exclusiveStartKey(Map.of("pk", s("c#1"), "sk", s("a")))));
        invalid("scan: empty start key", "starting key", startScan(Map.of()));
        invalid("scan: start key with an extra attribute", "starting key",
                startScan(Map.of("pk", s("s#1"), "sk", s("a"))));
        invalid("scan: start key with a wrongly named attribute", "starting key", startScan(Map.of("id", s("s#1"))));
        invalid("scan: start key from another segment", "does not map to the provided Segment", db -> {
            Item other = db.scan(SIMPLE, new Scan().segment(1, 2)).items().get(0);
            db.scan(SIMPLE, new Scan().segment(0, 2).exclusiveStartKey(Key.from(other, "pk", null).attributes()));
        });
        invalid("query: unknown index", "index", db -> db.query(INDEXED,
                new Query("GSI1PK = :p").index("NoSuchIndex").value(":p", s("G#1"))));
        invalid("query: an index of another table", "index", db -> db.query(SIMPLE,
                new Query("GSI1PK = :p").index("GSI1").value(":p", s("G#1"))));
    }

    private void batches() {
        invalid("batch write: empty", db -> db.batchWriteItem(new BatchWriteItem()));
        invalid("batch write: 26 writes", "25", db -> {
            BatchWriteItem batch = new BatchWriteItem();
            for (int i = 0; i < 26; i++) {
                batch.put(SIMPLE, Item.builder().s("pk", "s#b" + i).build());
            }
            db.batchWriteItem(batch);
        });
        invalid("batch get: empty", db -> db.batchGetItem(new BatchGetItem()));
        invalid("batch get: 101 keys", "100", db -> {
            BatchGetItem batch = new BatchGetItem();
            for (int i = 0; i < 101; i++) {
                batch.get(SIMPLE, Key.of("pk", s("s#" + i)));
            }
            db.batchGetItem(batch);
        });
        invalid("batch write: one item put twice", "duplicates", db -> db.batchWriteItem(new BatchWriteItem()
                .put(SIMPLE, Item.builder().s("pk", "s#new").build())
                .put(SIMPLE, Item.builder().s("pk", "s#new").n("num", 1).build())));
        invalid("batch write: put and delete of one item", "duplicates", db -> db.batchWriteItem(new BatchWriteItem()
                .put(SIMPLE, Item.builder().s("pk", "s#2").n("num", 0).build())
                .delete(SIMPLE, Key.of("pk", s("s#2")))));
        invalid("batch write: sort keys 1 and 1.0 are one item", "duplicates", db -> db.batchWriteItem(
                new BatchWriteItem()
                        .put(NUMBERED, Item.builder().s("pk", "n#9").n("seq", "1").build())
                        .put(NUMBERED, Item.builder().s("pk", "n#9").n("seq", "1.0").build())));
        invalid("batch get: one key twice", "duplicates",
                db -> db.batchGetItem(new BatchGetItem().get(SIMPLE, S1).get(SIMPLE, S1)));
        invalid("batch write: one bad key among good writes", "Type mismatch", db -> db.batchWriteItem(
                new BatchWriteItem()
                        .put(SIMPLE, Item.builder().s("pk", "s#new1").build()).delete(SIMPLE, Key.of("pk", s("s#2")))
                        .put(SIMPLE, Item.builder().n("pk", 3).build())));
        invalid("batch write: an item over 400 KB", "Item size", db -> db.batchWriteItem(new BatchWriteItem()
                .put(SIMPLE, Item.builder().s("pk", "s#new").s("str", "x".repeat(410_000)).build())));
        invalid("batch get: key without the sort key", "does not match the schema",
                db -> db.batchGetItem(new BatchGetItem().get(COMPOSITE, Key.of("pk", s("c#1")))));
        add("batch write: an unknown table among good writes", ResourceNotFoundException.class, null,
                db -> db.batchWriteItem(new BatchWriteItem().put(SIMPLE, Item.builder().s("pk", "s#new").build())
                        .put("NoSuchTable", Item.builder().s("pk", "x").build())));
        add("batch get: an unknown table", ResourceNotFoundException.class, null,
                db -> db.batchGetItem(new BatchGetItem().get(SIMPLE, S1).get("NoSuchTable", S1)));
    }

    private void transactions() {
        invalid("transaction: empty", db -> db.transactWriteItems(List.of()));
        invalid("transaction: 101 items", "100", db -> {
            List<TransactWrite> items = new ArrayList<>();
            for (int i = 0; i < 101; i++) {
                items.add(new TransactWrite(SIMPLE, new PutItem(Item.builder().s("pk", "s#t" + i).build())));
            }
            db.transactWriteItems(items);
        });
        invalid("transaction: put and update of one item", "multiple operations", db -> db.transactWriteItems(List.of(
                new TransactWrite(SIMPLE, new PutItem(Item.builder().s("pk", "s#2").build())),
                new TransactWrite(SIMPLE, new UpdateItem(Key.of("pk", s("s#2"))).update("SET num = :v")
                        .value(":v", n(0))))));
        invalid("transaction: check and delete of one item", "multiple operations", db -> db.transactWriteItems(List.of(
                new TransactWrite(SIMPLE, new ConditionCheck(S1, "attribute_exists(pk)")),
                new TransactWrite(SIMPLE, new DeleteItem(S1)))));
        invalid("transaction: sort keys 1 and 1.00 are one item", "multiple operations",
                db -> db.transactWriteItems(List.of(
                        new TransactWrite(NUMBERED, new DeleteItem(Key.of("pk", s("n#1"), "seq", n("1")))),
                        new TransactWrite(NUMBERED, new DeleteItem(Key.of("pk", s("n#1"), "seq", n("1.00")))))));
        invalid("transaction: token of 37 characters", "ClientRequestToken",
                db -> db.transactWriteItems(List.of(tokenPut("other")), "t".repeat(37)));
        invalid("transaction: empty token", "ClientRequestToken",
                db -> db.transactWriteItems(List.of(tokenPut("other")), ""));
        add("transaction: the token again with another item", IdempotentParameterMismatchException.class, TOKEN,
                db -> db.transactWriteItems(List.of(tokenPut("second")), TOKEN));
        add("transaction: the token again with another operation", IdempotentParameterMismatchException.class, TOKEN,
                db -> db.transactWriteItems(List.of(new TransactWrite(SIMPLE, new DeleteItem(Key.of("pk", s("s#tx"))))),
                        TOKEN));
        invalid("transaction: an update with a syntax error", "Syntax error", db -> db.transactWriteItems(List.of(
                new TransactWrite(SIMPLE, new PutItem(Item.builder().s("pk", "s#new").build())),
                new TransactWrite(SIMPLE, new UpdateItem(S1).update("SET num = = :v").value(":v", n(1))))));
        invalid("transaction: a check with an unused placeholder", "unused", db -> db.transactWriteItems(List.of(
                new TransactWrite(SIMPLE, new ConditionCheck(S1, "attribute_exists(pk)").value(":v", n(1))))));
        invalid("transaction: the second item with a bad key", "Type mismatch", db -> db.transactWriteItems(List.of(
                new TransactWrite(SIMPLE, new PutItem(Item.builder().s("pk", "s#new").build())),
                new TransactWrite(COMPOSITE, new DeleteItem(Key.of("pk", s("c#1"), "sk", n(1)))))));
        invalid("transaction: items over 4 MB in all", "4 MB", db -> {
            List<TransactWrite> items = new ArrayList<>();
            for (int i = 0; i < 11; i++) { // 11 items of 390 KB, each valid on its own
                items.add(new TransactWrite(SIMPLE,
                        new PutItem(Item.builder().s("pk", "s#t" + i).s("str", "x".repeat(390_000)).build())));
            }
            db.transactWriteItems(items);
        });
        invalid("transaction: a put over 400 KB", "Item size", db -> db.transactWriteItems(List.of(new TransactWrite(
                SIMPLE, new PutItem(Item.builder().s("pk", "s#new").s("str", "x".repeat(410_000)).build())))));
        // DynamoDB cancels the transaction (reason ValidationError) when an error shows only against the stored item.
        add("transaction: ADD a number to a string attribute", TransactionCanceledException.class, "ValidationError",
                db -> db.transactWriteItems(List.of(
                        new TransactWrite(SIMPLE, new PutItem(Item.builder().s("pk", "s#new").build())),
                        new TransactWrite(SIMPLE, new UpdateItem(S1).update("ADD str :one").value(":one", n(1))))));
        add("transaction: REMOVE a member of a string attribute", TransactionCanceledException.class, "ValidationError",
                db -> db.transactWriteItems(List.of(
                        new TransactWrite(SIMPLE, new PutItem(Item.builder().s("pk", "s#new").build())),
                        new TransactWrite(SIMPLE, new UpdateItem(S1).update("REMOVE str.c")))));
        add("transaction: an update making the item over 400 KB", TransactionCanceledException.class, "ValidationError",
                db -> db.transactWriteItems(List.of(
                        new TransactWrite(SIMPLE, new UpdateItem(BIG).update("SET twin = filler")))));
        invalid("transact get: empty", db -> db.transactGetItems(List.of()));
        invalid("transact get: 101 items", "100", db -> {
            List<TransactGet> gets = new ArrayList<>();
            for (int i = 0; i < 101; i++) {
                gets.add(new TransactGet(SIMPLE, new GetItem(Key.of("pk", s("s#" + i)))));
            }
            db.transactGetItems(gets);
        });
        invalid("transact get: one item twice", "duplicates", db -> db.transactGetItems(List.of(
                new TransactGet(SIMPLE, new GetItem(S1)), new TransactGet(SIMPLE, new GetItem(S1)))));
        add("transaction: an unknown table", ResourceNotFoundException.class, null, db -> db.transactWriteItems(List.of(
                new TransactWrite(SIMPLE, new PutItem(Item.builder().s("pk", "s#new").build())),
                new TransactWrite("NoSuchTable", new DeleteItem(S1)))));
        add("transact get: an unknown table", ResourceNotFoundException.class, null,
                db -> db.transactGetItems(List.of(new TransactGet("NoSuchTable", new GetItem(S1)))));
    }

    private void tables() {
        add("create: a table that exists", ResourceInUseException.class, SIMPLE,
                db -> db.createTable(TableSpec.builder(SIMPLE).partitionKey("pk", Type.S).build()));
        add("create: a table that exists, with another spec", ResourceInUseException.class, COMPOSITE,
                db -> db.createTable(TableSpec.builder(COMPOSITE).partitionKey("id", Type.N).partitions(8).build()));
        invalid("create: name of 2 characters", "table name", createTable("ab", 4));
        invalid("create: name with a space", "table name", createTable("bad name", 4));
        invalid("create: name of 256 characters", "table name", createTable("t".repeat(256), 4));
        invalid("create: 0 partitions", "partitions", createTable("NewTable", 0));
        invalid("create: 3 partitions", "partitions", createTable("NewTable", 3));
        invalid("create: 2048 partitions", "partitions", createTable("NewTable", 2048));
        invalid("create: partition key of type BOOL", "S, N or B", createTable(Type.BOOL, null));
        invalid("create: partition key of type SS", "S, N or B", createTable(Type.SS, null));
        invalid("create: sort key of type M", "S, N or B", createTable(Type.S, Type.M));
        invalid("create: partition and sort key with one name", db -> db.createTable(TableSpec.builder("NewTable")
                .partitionKey("id", Type.S).sortKey("id", Type.S).build()));
        invalid("create: no partition key", "partition key",
                db -> db.createTable(TableSpec.builder("NewTable").build()));
        invalid("create: empty key attribute name", db -> db.createTable(TableSpec.builder("NewTable")
                .partitionKey("", Type.S).build()));
        // KeySchemaElement.AttributeName is 1 to 255 characters, for a table's keys and an index's alike.
        invalid("create: key attribute name of 256 characters", db -> db.createTable(TableSpec.builder("NewTable")
                .partitionKey("k".repeat(256), Type.S).build()));
        invalid("create: index name of 2 characters", "index name", createIndexed(() -> IndexSpec.global("ix",
                KeyAttribute.s("g"), null)));
        invalid("create: two indexes with one name", "Duplicate index name: Ix1", db -> db.createTable(TableSpec.builder("NewTable")
                .partitionKey("pk", Type.S).sortKey("sk", Type.S)
                .index(IndexSpec.global("Ix1", KeyAttribute.s("a"), null))
                .index(IndexSpec.local("Ix1", KeyAttribute.s("b"))).build()));
        invalid("create: local index on a table without a sort key", "sort key", db -> db.createTable(
                TableSpec.builder("NewTable").partitionKey("pk", Type.S)
                        .index(IndexSpec.local("Lsi", KeyAttribute.s("b")))
                        .build()));
        invalid("create: global index with 3 partitions", "partitions", createIndexed(() -> IndexSpec.global("Gsi",
                KeyAttribute.s("g"), null).withPartitions(3)));
        invalid("create: INCLUDE without attributes", "INCLUDE", createIndexed(() -> IndexSpec.global("Gsi",
                KeyAttribute.s("g"), null).withProjection(IndexSpec.Projection.INCLUDE)));
        invalid("create: KEYS_ONLY with attributes", "INCLUDE", createIndexed(() -> IndexSpec.global("Gsi",
                KeyAttribute.s("g"), null).withProjection(IndexSpec.Projection.KEYS_ONLY, "a")));
        invalid("create: 21 global indexes", "at most", db -> {
            TableSpec.Builder spec = TableSpec.builder("NewTable").partitionKey("pk", Type.S);
            for (int i = 0; i < 21; i++) {
                spec.index(IndexSpec.global("Gsi" + i, KeyAttribute.s("g" + i), null));
            }
            db.createTable(spec.build());
        });
        invalid("create: 6 local indexes", "at most", db -> {
            TableSpec.Builder spec = TableSpec.builder("NewTable").partitionKey("pk", Type.S).sortKey("sk", Type.S);
            for (int i = 0; i < 6; i++) {
                spec.index(IndexSpec.local("Lsi" + i, KeyAttribute.s("l" + i)));
            }
            db.createTable(spec.build());
        });
        invalid("create: index key of type BOOL", "S, N or B", createIndexed(() -> IndexSpec.global("Gsi",
                new KeyAttribute("g", Type.BOOL), null)));
        // As for a table: "Both the Hash Key and the Range Key element in the KeySchema have the same name".
        invalid("create: index partition and sort key with one name", createIndexed(() -> IndexSpec.global("Gsi",
                KeyAttribute.s("g"), KeyAttribute.s("g"))));
        // DynamoDB declares each key attribute once (AttributeDefinitions), with one type for table and indexes.
        invalid("create: index key with the table key's name and another type",
                createIndexed(() -> IndexSpec.global("Gsi", KeyAttribute.n("pk"), null)));
        invalid("create: index key attribute name of 256 characters", createIndexed(() -> IndexSpec.global("Gsi",
                KeyAttribute.s("g".repeat(256)), null)));
        invalid("update table: another sort key", "key schema", db -> db.updateTable(TableSpec.builder(COMPOSITE)
                .partitionKey("pk", Type.S).sortKey("other", Type.S).build()));
        invalid("update table: other partitions", "partitions", db -> db.updateTable(TableSpec.builder(SIMPLE)
                .partitionKey("pk", Type.S).partitions(8).build()));
        invalid("update table: add a local index", "local index", db -> db.updateTable(TableSpec.builder(COMPOSITE)
                .partitionKey("pk", Type.S).sortKey("sk", Type.S).index(IndexSpec.local("Lsi", KeyAttribute.s("b")))
                .build()));
        invalid("update table: remove a local index", "local index", db -> db.updateTable(TableSpec.builder(INDEXED)
                .partitionKey("pk", Type.S).sortKey("sk", Type.S)
                .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build()));
    }

    /** TagResource, UntagResource and UpdateTimeToLive (API reference; developer guide, "Tagging restrictions"). */
    private void tagsAndTimeToLive() {
        String lengthAtLeast1 = "Member must have length greater than or equal to 1";
        String pattern = "Member must satisfy regular expression pattern";
        invalid("tag: no tags", "Atleast one Tag needs to be provided as Input.", db -> db.tagResource(COMPOSITE, List.of()));
        invalid("tag: empty key", lengthAtLeast1, db -> db.tagResource(COMPOSITE, List.of(new Tag("", "v"))));
        invalid("tag: key of 129 characters", "less than or equal to 128",
                db -> db.tagResource(COMPOSITE, List.of(new Tag("k".repeat(129), "v"))));
        invalid("tag: value of 257 characters", "less than or equal to 256",
                db -> db.tagResource(COMPOSITE, List.of(new Tag("k", "v".repeat(257)))));
        invalid("tag: key with a comma", pattern, db -> db.tagResource(COMPOSITE, List.of(new Tag("a,b", "v"))));
        invalid("tag: value with a percent sign", pattern, db -> db.tagResource(COMPOSITE, List.of(new Tag("k", "5%"))));
        invalid("tag: key with the aws: prefix", "reserved prefix aws:",
                db -> db.tagResource(COMPOSITE, List.of(new Tag("aws:owner", "v"))));
        invalid("tag: one key twice", "Duplicate tag key k",
                db -> db.tagResource(COMPOSITE, List.of(new Tag("k", "1"), new Tag("k", "2"))));
        invalid("tag: a 51st tag", "at most 50 tags", db -> db.tagResource(SIMPLE, List.of(new Tag("one-more", "v"))));
        invalid("untag: no keys", "Atleast one Tag Key needs to be provided as Input.",
                db -> db.untagResource(SIMPLE, List.of()));
        invalid("untag: key with the aws: prefix", "reserved prefix aws:",
                db -> db.untagResource(SIMPLE, List.of("tag1", "aws:owner")));
        invalid("ttl: empty attribute name", lengthAtLeast1, db -> db.updateTimeToLive(SIMPLE, "", true));
        invalid("ttl: attribute name of 256 characters", "less than or equal to 255",
                db -> db.updateTimeToLive(SIMPLE, "t".repeat(256), true));
        invalid("ttl: enable when enabled", "TimeToLive is already enabled",
                db -> db.updateTimeToLive(COMPOSITE, "expiresAt", true));
        invalid("ttl: enable on another attribute when enabled", "TimeToLive is already enabled",
                db -> db.updateTimeToLive(COMPOSITE, "ttl", true));
        invalid("ttl: disable when disabled", "TimeToLive is already disabled",
                db -> db.updateTimeToLive(SIMPLE, "expiresAt", false));
        invalid("ttl: disable by another attribute", "TimeToLive is enabled on attribute expiresAt, not ttl",
                db -> db.updateTimeToLive(COMPOSITE, "ttl", false));
    }

    private void unknownTables() {
        Class<ResourceNotFoundException> notFound = ResourceNotFoundException.class;
        add("describe: unknown table", notFound, "NoSuchTable", db -> db.describeTable("NoSuchTable"));
        add("delete table: unknown table", notFound, "NoSuchTable", db -> db.deleteTable("NoSuchTable"));
        add("table handle: unknown table", notFound, "NoSuchTable", db -> db.table("NoSuchTable"));
        add("tag: unknown table", notFound, "NoSuchTable",
                db -> db.tagResource("NoSuchTable", List.of(new Tag("k", "v"))));
        add("untag: unknown table", notFound, "NoSuchTable", db -> db.untagResource("NoSuchTable", List.of("k")));
        add("list tags: unknown table", notFound, "NoSuchTable", db -> db.listTagsOfResource("NoSuchTable"));
        add("update time to live: unknown table", notFound, "NoSuchTable",
                db -> db.updateTimeToLive("NoSuchTable", "expiresAt", true));
        add("describe time to live: unknown table", notFound, "NoSuchTable",
                db -> db.describeTimeToLive("NoSuchTable"));
        add("update table: unknown table", notFound, "NoSuchTable",
                db -> db.updateTable(TableSpec.builder("NoSuchTable").partitionKey("pk", Type.S).build()));
        add("get: unknown table", notFound, "NoSuchTable", get("NoSuchTable", () -> S1));
        add("put: unknown table", notFound, "NoSuchTable",
                put("NoSuchTable", () -> Item.builder().s("pk", "x").build()));
        add("update: unknown table", notFound, "NoSuchTable", update("NoSuchTable", S1, "SET num = :v", ":v", n(1)));
        add("delete: unknown table", notFound, "NoSuchTable", db -> db.deleteItem("NoSuchTable", new DeleteItem(S1)));
        add("query: unknown table", notFound, "NoSuchTable", query("NoSuchTable", "pk = :p", ":p", s("x")));
        add("scan: unknown table", notFound, "NoSuchTable", db -> db.scan("NoSuchTable", new Scan()));
    }

    // ---- building cases

    private void invalid(String description, Consumer<Database> request) {
        add(description, ValidationException.class, null, request);
    }

    private void invalid(String description, String fragment, Consumer<Database> request) {
        add(description, ValidationException.class, fragment, request);
    }

    private void add(String description, Class<? extends RuntimeException> expected, String fragment,
                     Consumer<Database> request) {
        cases.add(new BadInput(description, expected, fragment, request));
    }

    /** Adds {@code "#name", "attribute"} and {@code ":value", AttributeValue} pairs to {@code request}. */
    private static <T extends ExpressionRequest<T>> T with(T request, Object... placeholders) {
        for (int i = 0; i < placeholders.length; i += 2) {
            String key = (String) placeholders[i];
            if (key.startsWith("#")) {
                request.name(key, (String) placeholders[i + 1]);
            } else {
                request.value(key, (AttributeValue) placeholders[i + 1]);
            }
        }
        return request;
    }

    private static Consumer<Database> put(String table, Supplier<Item> item) {
        return db -> db.putItem(table, new PutItem(item.get()));
    }

    /** A put of a new item whose attribute {@code v} is the value built by {@code value}. */
    private static Consumer<Database> putValue(Supplier<AttributeValue> value) {
        return db -> db.putItem(SIMPLE, new PutItem(Item.builder().s("pk", "s#new").put("v", value.get()).build()));
    }

    private static Consumer<Database> get(String table, Supplier<Key> key) {
        return db -> db.getItem(table, new GetItem(key.get()));
    }

    private static Consumer<Database> update(Key key, String expression, Object... placeholders) {
        return update(SIMPLE, key, expression, placeholders);
    }

    private static Consumer<Database> update(String table, Key key, String expression, Object... placeholders) {
        return db -> db.updateItem(table, with(new UpdateItem(key).update(expression), placeholders));
    }

    /** A delete of item s#1 under {@code expression}: were it wrongly accepted and true, the item would go. */
    private static Consumer<Database> condition(String expression, Object... placeholders) {
        return db -> db.deleteItem(SIMPLE, with(new DeleteItem(S1).condition(expression), placeholders));
    }

    private static Consumer<Database> projection(String expression, Object... placeholders) {
        return db -> db.getItem(SIMPLE, with(new GetItem(S1).projection(expression), placeholders));
    }

    private static Consumer<Database> query(String table, String keyCondition, Object... placeholders) {
        return db -> db.query(table, with(new Query(keyCondition), placeholders));
    }

    private static Consumer<Database> filter(String expression, Object... placeholders) {
        return db -> db.scan(SIMPLE, with(new Scan().filter(expression), placeholders));
    }

    private static Consumer<Database> startQuery(Map<String, AttributeValue> start) {
        return db -> db.query(COMPOSITE, new Query("pk = :p").value(":p", s("c#1")).exclusiveStartKey(start));
    }

    private static Consumer<Database> startScan(Map<String, AttributeValue> start) {
        return db -> db.scan(SIMPLE, new Scan().exclusiveStartKey(start));
    }

    private static Consumer<Database> createTable(String name, int partitions) {
        return db -> db.createTable(TableSpec.builder(name).partitionKey("pk", Type.S).partitions(partitions).build());
    }

    private static Consumer<Database> createTable(Type partitionKey, Type sortKey) {
        return db -> {
            TableSpec.Builder spec = TableSpec.builder("NewTable").partitionKey("pk", partitionKey);
            if (sortKey != null) {
                spec.sortKey("sk", sortKey);
            }
            db.createTable(spec.build());
        };
    }

    /** A create of a table with key pk (S) and sk (S) and the index built by {@code index}. */
    private static Consumer<Database> createIndexed(Supplier<IndexSpec> index) {
        return db -> db.createTable(TableSpec.builder("NewTable").partitionKey("pk", Type.S).sortKey("sk", Type.S)
                .index(index.get()).build());
    }

    /** A map nested {@code levels} deep: level 1 is the attribute's own value. */
    private static AttributeValue nested(int levels) {
        AttributeValue v = s("leaf");
        for (int i = 0; i < levels; i++) {
            v = m(Map.of("k", v));
        }
        return v;
    }

    /** {@code num = :v} inside {@code depth} levels of non-redundant parentheses. */
    private static String parenthesised(int depth) {
        String expression = "num = :v";
        for (int i = 0; i < depth; i++) {
            expression = "(" + expression + ") AND num = :v";
        }
        return expression;
    }
}
