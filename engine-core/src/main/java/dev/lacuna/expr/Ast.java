package dev.lacuna.expr;

import dev.lacuna.AttributeValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The syntax trees of all expression kinds: immutable records under a few sealed interfaces. A parser builds
 * them with placeholders ({@link NamePlaceholder}, {@link ValueRef}); {@link Binder} replaces those by what
 * they stand for ({@link Name}, {@link Literal}), and the evaluators only ever see such bound trees.
 */
final class Ast {
    private Ast() {
    }

    // ---- document paths ----

    /** One step of a document path: a map key (or top-level attribute) name, its placeholder, or a list index. */
    sealed interface PathElement permits Name, NamePlaceholder, Index {
    }

    /** An attribute or map key name. */
    record Name(String name) implements PathElement {
        Name {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** {@code #placeholder}, standing for a name in the expression attribute names. */
    record NamePlaceholder(String placeholder) implements PathElement {
        @Override
        public String toString() {
            return placeholder;
        }
    }

    /** A list index, {@code [n]}. */
    record Index(int index) implements PathElement {
        Index {
            if (index < 0) {
                throw new IllegalArgumentException("negative list index " + index);
            }
        }

        @Override
        public String toString() {
            return "[" + index + "]";
        }
    }

    /** A document path such as {@code a.b[2].c}: a name first, then names and indexes. */
    record Path(List<PathElement> elements) implements Operand, SetValue {
        Path {
            elements = List.copyOf(elements);
            if (elements.isEmpty() || elements.get(0) instanceof Index) {
                throw new IllegalArgumentException("a path starts with a name: " + elements);
            }
        }

        /** A path of plain names, for tests and callers that have no placeholders: {@code Path.of("a", "b")}. */
        static Path of(Object... elements) {
            List<PathElement> list = new ArrayList<>();
            for (Object e : elements) {
                list.add(e instanceof Integer i ? new Index(i) : e instanceof PathElement p ? p : new Name((String) e));
            }
            return new Path(list);
        }

        /** The first element's name; only meaningful once bound. */
        String topLevelName() {
            return elements.get(0).toString();
        }

        /** DynamoDB's form in overlap errors: {@code [a, b, [2]]}. */
        String describe() {
            return elements.toString();
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            for (PathElement e : elements) {
                if (sb.length() > 0 && !(e instanceof Index)) {
                    sb.append('.');
                }
                sb.append(e);
            }
            return sb.toString();
        }
    }

    // ---- operands ----

    /** What conditions compare: a path, a value, or {@code size(operand)}. */
    sealed interface Operand permits Path, ValueRef, Literal, Size {
    }

    /** {@code :placeholder}, standing for a value in the expression attribute values. */
    record ValueRef(String placeholder) implements Operand, SetValue {
        @Override
        public String toString() {
            return placeholder;
        }
    }

    /** A value, after binding. */
    record Literal(AttributeValue value) implements Operand, SetValue {
        Literal {
            Objects.requireNonNull(value, "value");
        }
    }

    /** {@code size(operand)}: of a path, or of a value (DynamoDB accepts {@code size(:v)}). */
    record Size(Operand operand) implements Operand {
    }

    // ---- conditions and filters ----

    /** A condition, filter or key condition. */
    sealed interface Condition permits Compare, Between, In, And, Or, Not, AttributeExists, AttributeNotExists,
            AttributeType, BeginsWith, Contains {
    }

    /** The six comparators. */
    enum Comparator {
        EQ("="), NE("<>"), LT("<"), LE("<="), GT(">"), GE(">=");

        final String symbol;

        Comparator(String symbol) {
            this.symbol = symbol;
        }
    }

    record Compare(Operand left, Comparator comparator, Operand right) implements Condition {
    }

    record Between(Operand value, Operand lower, Operand upper) implements Condition {
    }

    record In(Operand value, List<Operand> candidates) implements Condition {
        In {
            candidates = List.copyOf(candidates);
        }
    }

    /** Two or more conditions, all of which must hold; {@code a AND b AND c} is one node. */
    record And(List<Condition> operands) implements Condition {
        And {
            operands = List.copyOf(operands);
        }
    }

    /** Two or more conditions, one of which must hold. */
    record Or(List<Condition> operands) implements Condition {
        Or {
            operands = List.copyOf(operands);
        }
    }

    record Not(Condition operand) implements Condition {
    }

    record AttributeExists(Path path) implements Condition {
    }

    record AttributeNotExists(Path path) implements Condition {
    }

    /** {@code attribute_type(subject, type)}: the subject is a path or a value, the type a value. */
    record AttributeType(Operand subject, Operand type) implements Condition {
    }

    record BeginsWith(Operand subject, Operand prefix) implements Condition {
    }

    record Contains(Operand subject, Operand operand) implements Condition {
    }

    // ---- updates ----

    /** The right-hand side of a SET action. */
    sealed interface SetValue permits Path, ValueRef, Literal, Arithmetic, IfNotExists, ListAppend {
    }

    /** {@code left + right} or {@code left - right}, on numbers. */
    record Arithmetic(SetValue left, boolean plus, SetValue right) implements SetValue {
    }

    /** {@code if_not_exists(path, fallback)}: the value at path, or fallback if there is none. */
    record IfNotExists(Path path, SetValue fallback) implements SetValue {
    }

    /** {@code list_append(first, second)}: the elements of first, then those of second. */
    record ListAppend(SetValue first, SetValue second) implements SetValue {
    }

    record SetAction(Path path, SetValue value) {
    }

    /** {@code ADD path value}: value is a {@link ValueRef}, or a {@link Literal} once bound. */
    record AddAction(Path path, Operand value) {
    }

    /** {@code DELETE path value}: value is a {@link ValueRef}, or a {@link Literal} once bound. */
    record DeleteAction(Path path, Operand value) {
    }

    /** An update expression: each clause's actions in the order written (clauses may be absent). */
    record Update(List<SetAction> set, List<Path> remove, List<AddAction> add, List<DeleteAction> delete) {
        Update {
            set = List.copyOf(set);
            remove = List.copyOf(remove);
            add = List.copyOf(add);
            delete = List.copyOf(delete);
        }
    }

    /** A projection expression: the paths in the order written. */
    record Projection(List<Path> paths) {
        Projection {
            paths = List.copyOf(paths);
        }
    }
}
