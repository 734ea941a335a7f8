package dev.lacuna.expr;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import dev.lacuna.expr.Ast.AddAction;
import dev.lacuna.expr.Ast.And;
import dev.lacuna.expr.Ast.Arithmetic;
import dev.lacuna.expr.Ast.AttributeExists;
import dev.lacuna.expr.Ast.AttributeNotExists;
import dev.lacuna.expr.Ast.AttributeType;
import dev.lacuna.expr.Ast.BeginsWith;
import dev.lacuna.expr.Ast.Between;
import dev.lacuna.expr.Ast.Comparator;
import dev.lacuna.expr.Ast.Compare;
import dev.lacuna.expr.Ast.Condition;
import dev.lacuna.expr.Ast.Contains;
import dev.lacuna.expr.Ast.DeleteAction;
import dev.lacuna.expr.Ast.IfNotExists;
import dev.lacuna.expr.Ast.In;
import dev.lacuna.expr.Ast.ListAppend;
import dev.lacuna.expr.Ast.Literal;
import dev.lacuna.expr.Ast.Name;
import dev.lacuna.expr.Ast.NamePlaceholder;
import dev.lacuna.expr.Ast.Not;
import dev.lacuna.expr.Ast.Operand;
import dev.lacuna.expr.Ast.Or;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.PathElement;
import dev.lacuna.expr.Ast.Projection;
import dev.lacuna.expr.Ast.SetAction;
import dev.lacuna.expr.Ast.SetValue;
import dev.lacuna.expr.Ast.Size;
import dev.lacuna.expr.Ast.Update;
import dev.lacuna.expr.Ast.ValueRef;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Replaces placeholders by what they stand for ({@code #n} → {@link Name}, {@code :v} → {@link Literal}),
 * marking them used in the {@link Placeholders}, and makes the checks DynamoDB makes before reading any item:
 * operand types of {@code begins_with}, {@code attribute_type}, {@code BETWEEN}, {@code ADD}, {@code DELETE},
 * {@code +}/{@code -} and {@code list_append} where the operand is a value, and overlapping paths.
 */
final class Binder {
    private static final Set<AttributeValue.Type> SETS =
            EnumSet.of(AttributeValue.Type.SS, AttributeValue.Type.NS, AttributeValue.Type.BS);

    private final Placeholders placeholders;
    private final ExpressionKind kind;

    Binder(Placeholders placeholders, ExpressionKind kind) {
        this.placeholders = placeholders;
        this.kind = kind;
    }

    Path path(Path path) {
        List<PathElement> elements = new ArrayList<>(path.elements().size());
        for (PathElement e : path.elements()) {
            elements.add(e instanceof NamePlaceholder p ? new Name(placeholders.name(p.placeholder(), kind)) : e);
        }
        return new Path(elements);
    }

    AttributeValue value(ValueRef ref) {
        return placeholders.value(ref.placeholder(), kind);
    }

    Operand operand(Operand operand) {
        if (operand instanceof Path p) {
            return path(p);
        }
        if (operand instanceof ValueRef ref) {
            return new Literal(value(ref));
        }
        if (operand instanceof Size size) {
            Operand inner = operand(size.operand());
            // A value is checked now, as DynamoDB checks it before reading any item; an attribute of a type
            // without a size only makes the comparison false.
            if (inner instanceof Literal literal && Values.size(literal.value()) == null) {
                throw operandType("size", literal.value());
            }
            if (inner instanceof Size) {
                throw kind.error("Incorrect operand type for operator or function; operator or function: size,"
                        + " operand type: N");
            }
            return new Size(inner);
        }
        return operand;
    }

    // ---- conditions ----

    /**
     * An ordering comparison of a literal value that has no order (a list, map, set, boolean or null) is an
     * error, as in DynamoDB; an attribute of such a type only makes the comparison false at run time.
     */
    private void requireOrdered(String operator, Operand... operands) {
        for (Operand o : operands) {
            if (o instanceof Literal literal) {
                AttributeValue.Type t = literal.value().type();
                if (t != AttributeValue.Type.S && t != AttributeValue.Type.N && t != AttributeValue.Type.B) {
                    throw operandType(operator, literal.value());
                }
            }
        }
    }

    Condition condition(Condition c) {
        if (c instanceof And and) {
            return new And(conditions(and.operands()));
        }
        if (c instanceof Or or) {
            return new Or(conditions(or.operands()));
        }
        if (c instanceof Not not) {
            return new Not(condition(not.operand()));
        }
        if (c instanceof Compare compare) {
            Compare bound = new Compare(operand(compare.left()), compare.comparator(), operand(compare.right()));
            if (compare.comparator() != Comparator.EQ && compare.comparator() != Comparator.NE) {
                requireOrdered(compare.comparator().symbol, bound.left(), bound.right());
            }
            requireDistinct(compare.comparator().symbol, bound.left(), List.of(bound.right()));
            return bound;
        }
        if (c instanceof Between between) {
            Between bound = new Between(operand(between.value()), operand(between.lower()), operand(between.upper()));
            requireOrdered("BETWEEN", bound.value(), bound.lower(), bound.upper());
            requireDistinct("BETWEEN", bound.value(), List.of(bound.lower(), bound.upper()));
            if (bound.lower() instanceof Literal low && bound.upper() instanceof Literal high) {
                checkBounds(low.value(), high.value());
            }
            return bound;
        }
        if (c instanceof In in) {
            List<Operand> candidates = new ArrayList<>();
            for (Operand candidate : in.candidates()) {
                candidates.add(operand(candidate));
            }
            Operand value = operand(in.value());
            requireDistinct("IN", value, candidates);
            return new In(value, candidates);
        }
        if (c instanceof AttributeExists exists) {
            return new AttributeExists(path(exists.path()));
        }
        if (c instanceof AttributeNotExists notExists) {
            return new AttributeNotExists(path(notExists.path()));
        }
        if (c instanceof AttributeType type) {
            Operand subject = operand(type.subject());
            Operand name = operand(type.type());
            AttributeValue value = ((Literal) name).value();
            if (!(value instanceof AttributeValue.S s)) {
                throw operandType("attribute_type", value);
            }
            if (AttributeValue.Type.named(s.value()) == null) {
                throw kind.error("Invalid attribute type name found; type: " + s.value()
                        + ", valid types: { B,NULL,SS,BOOL,L,BS,N,NS,S,M }");
            }
            return new AttributeType(subject, name);
        }
        if (c instanceof BeginsWith beginsWith) {
            Operand subject = operand(beginsWith.subject());
            Operand prefix = operand(beginsWith.prefix());
            // DynamoDB checks both operands, when they are values: begins_with takes S and B only.
            for (Operand o : List.of(subject, prefix)) {
                if (o instanceof Literal literal && !isStringOrBinary(literal.value())) {
                    throw operandType("begins_with", literal.value());
                }
            }
            requireDistinct("begins_with", subject, List.of(prefix));
            return new BeginsWith(subject, prefix);
        }
        Contains contains = (Contains) c;
        Operand subject = operand(contains.subject());
        Operand operand = operand(contains.operand());
        requireDistinct("contains", subject, List.of(operand));
        return new Contains(subject, operand);
    }

    /**
     * DynamoDB refuses an operator or function whose first operand is a path that appears again among its other
     * operands ({@code a = a}, {@code contains(a, a)}, {@code a IN (:v, a)}), whatever the item.
     */
    private void requireDistinct(String operator, Operand first, List<Operand> others) {
        if (first instanceof Path path && others.contains(path)) {
            throw kind.error("The first operand must be distinct from the remaining operands for this operator or function;"
                    + " operator: " + operator + ", first operand: " + path.describe());
        }
    }

    private List<Condition> conditions(List<Condition> conditions) {
        List<Condition> bound = new ArrayList<>(conditions.size());
        for (Condition c : conditions) {
            bound.add(condition(c));
        }
        return bound;
    }

    /** BETWEEN's bounds, when both are values: of one type, and in order where the type is ordered. */
    void checkBounds(AttributeValue lower, AttributeValue upper) {
        if (lower.type() != upper.type()) {
            throw kind.error("The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand:"
                    + " AttributeValue: {" + Values.describe(lower) + "}, upper bound operand: AttributeValue: {"
                    + Values.describe(upper) + "}");
        }
        Integer order = Values.compare(lower, upper);
        if (order != null && order > 0) {
            throw kind.error("The BETWEEN operator requires upper bound to be greater than or equal to lower bound;"
                    + " lower bound operand: AttributeValue: {" + Values.describe(lower)
                    + "}, upper bound operand: AttributeValue: {" + Values.describe(upper) + "}");
        }
    }

    // ---- updates ----

    Update update(Update update) {
        List<Path> targets = new ArrayList<>();
        List<SetAction> set = new ArrayList<>();
        for (SetAction action : update.set()) {
            set.add(new SetAction(path(action.path()), setValue(action.value())));
            targets.add(set.get(set.size() - 1).path());
        }
        List<Path> remove = new ArrayList<>();
        for (Path path : update.remove()) {
            remove.add(path(path));
            targets.add(remove.get(remove.size() - 1));
        }
        List<AddAction> add = new ArrayList<>();
        for (AddAction action : update.add()) {
            Path path = path(action.path());
            AttributeValue value = value((ValueRef) action.value());
            if (value.type() != AttributeValue.Type.N && !SETS.contains(value.type())) {
                throw clauseOperandType("ADD", value);
            }
            add.add(new AddAction(path, new Literal(value)));
            targets.add(path);
        }
        List<DeleteAction> delete = new ArrayList<>();
        for (DeleteAction action : update.delete()) {
            Path path = path(action.path());
            AttributeValue value = value((ValueRef) action.value());
            if (!SETS.contains(value.type())) {
                throw clauseOperandType("DELETE", value);
            }
            delete.add(new DeleteAction(path, new Literal(value)));
            targets.add(path);
        }
        PathOverlap.check(targets, kind);
        return new Update(set, remove, add, delete);
    }

    private SetValue setValue(SetValue value) {
        if (value instanceof Path path) {
            return path(path);
        }
        if (value instanceof ValueRef ref) {
            return new Literal(value(ref));
        }
        if (value instanceof Arithmetic arithmetic) {
            SetValue left = setValue(arithmetic.left());
            SetValue right = setValue(arithmetic.right());
            requireType(left, AttributeValue.Type.N, arithmetic.plus() ? "+" : "-");
            requireType(right, AttributeValue.Type.N, arithmetic.plus() ? "+" : "-");
            return new Arithmetic(left, arithmetic.plus(), right);
        }
        if (value instanceof IfNotExists ifNotExists) {
            return new IfNotExists(path(ifNotExists.path()), setValue(ifNotExists.fallback()));
        }
        if (value instanceof ListAppend append) {
            SetValue first = setValue(append.first());
            SetValue second = setValue(append.second());
            requireType(first, AttributeValue.Type.L, "list_append");
            requireType(second, AttributeValue.Type.L, "list_append");
            return new ListAppend(first, second);
        }
        return value;
    }

    private void requireType(SetValue value, AttributeValue.Type type, String function) {
        if (value instanceof Literal literal && literal.value().type() != type) {
            throw operandType(function, literal.value());
        }
    }

    // ---- projections ----

    Projection projection(Projection projection) {
        List<Path> paths = new ArrayList<>();
        for (Path path : projection.paths()) {
            paths.add(path(path));
        }
        PathOverlap.check(paths, kind);
        return new Projection(paths);
    }

    /**
     * ADD or DELETE given a value of a type it never takes, in DynamoDB's words, which name the type in full
     * ({@code STRING}, {@code NUMBER_SET}) and the set of types the clause takes.
     */
    private ValidationException clauseOperandType(String clause, AttributeValue value) {
        String type = switch (value.type()) {
            case S -> "STRING";
            case N -> "NUMBER";
            case B -> "BINARY";
            case BOOL -> "BOOLEAN";
            case NULL -> "NULL";
            case L -> "LIST";
            case M -> "MAP";
            case SS -> "STRING_SET";
            case NS -> "NUMBER_SET";
            case BS -> "BINARY_SET";
        };
        return kind.error("Incorrect operand type for operator or function; operator: " + clause + ", operand type: "
                + type + ", typeSet: ALLOWED_FOR_" + clause + "_OPERAND");
    }

    private ValidationException operandType(String function, AttributeValue value) {
        return kind.error("Incorrect operand type for operator or function; operator or function: " + function
                + ", operand type: " + value.type());
    }

    static boolean isStringOrBinary(AttributeValue v) {
        return v.type() == AttributeValue.Type.S || v.type() == AttributeValue.Type.B;
    }
}
