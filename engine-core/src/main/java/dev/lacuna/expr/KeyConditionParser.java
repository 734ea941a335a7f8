package dev.lacuna.expr;

import dev.lacuna.ValidationException;
import dev.lacuna.expr.Ast.And;
import dev.lacuna.expr.Ast.AttributeExists;
import dev.lacuna.expr.Ast.AttributeNotExists;
import dev.lacuna.expr.Ast.AttributeType;
import dev.lacuna.expr.Ast.BeginsWith;
import dev.lacuna.expr.Ast.Between;
import dev.lacuna.expr.Ast.Compare;
import dev.lacuna.expr.Ast.Condition;
import dev.lacuna.expr.Ast.Contains;
import dev.lacuna.expr.Ast.In;
import dev.lacuna.expr.Ast.Not;
import dev.lacuna.expr.Ast.Operand;
import dev.lacuna.expr.Ast.Or;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.Size;
import dev.lacuna.expr.Ast.ValueRef;
import dev.lacuna.expr.KeyTerm.Operator;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses a key condition: one or two terms joined by {@code AND}, in either order, each {@code key op :v}
 * ({@code = < <= > >=}, the value may also come first: {@code :v < key} is {@code key > :v}),
 * {@code key BETWEEN :a AND :b} or {@code begins_with(key, :p)}, where a key is a top-level attribute name or
 * {@code #name}. Parentheses around a term or the whole are allowed. The syntax is the condition syntax
 * ({@link ConditionParser}); anything it accepts that a key condition does not is rejected here, saying what.
 */
final class KeyConditionParser {
    private static final ExpressionKind KIND = ExpressionKind.KEY_CONDITION;

    /** A term before binding: {@code upper} is set for BETWEEN only. */
    record RawTerm(Path key, Operator operator, ValueRef value, ValueRef upper) {
    }

    private KeyConditionParser() {
    }

    static List<RawTerm> parse(String source) {
        List<Condition> parts = new ArrayList<>();
        flatten(ConditionParser.parse(source, KIND), parts);
        if (parts.size() > 2) {
            throw KIND.error("KeyConditionExpressions must only contain one condition per key; conditions: "
                    + parts.size() + ", maximum: 2 (one on the partition key, one on the sort key)");
        }
        List<RawTerm> terms = new ArrayList<>();
        for (Condition part : parts) {
            terms.add(term(part));
        }
        return terms;
    }

    private static void flatten(Condition c, List<Condition> out) {
        if (c instanceof And and) {
            for (Condition operand : and.operands()) {
                flatten(operand, out);
            }
        } else {
            out.add(c);
        }
    }

    private static RawTerm term(Condition c) {
        if (c instanceof Compare compare) {
            Operator op = switch (compare.comparator()) {
                case EQ -> Operator.EQ;
                case LT -> Operator.LT;
                case LE -> Operator.LE;
                case GT -> Operator.GT;
                case GE -> Operator.GE;
                case NE -> throw invalidOperator("<>");
            };
            if (compare.left() instanceof ValueRef && !(compare.right() instanceof ValueRef)) {
                return new RawTerm(key(compare.right()), flip(op), (ValueRef) compare.left(), null);
            }
            return new RawTerm(key(compare.left()), op, value(compare.right()), null);
        }
        if (c instanceof Between between) {
            return new RawTerm(key(between.value()), Operator.BETWEEN, value(between.lower()), value(between.upper()));
        }
        if (c instanceof BeginsWith beginsWith) {
            return new RawTerm(key(beginsWith.subject()), Operator.BEGINS_WITH, value(beginsWith.prefix()), null);
        }
        throw invalidOperator(c instanceof Or ? "OR" : c instanceof Not ? "NOT" : c instanceof In ? "IN"
                : c instanceof AttributeExists ? "attribute_exists" : c instanceof AttributeNotExists ? "attribute_not_exists"
                : c instanceof AttributeType ? "attribute_type" : c instanceof Contains ? "contains" : c.toString());
    }

    private static Operator flip(Operator op) {
        return switch (op) {
            case LT -> Operator.GT;
            case LE -> Operator.GE;
            case GT -> Operator.LT;
            case GE -> Operator.LE;
            default -> op;
        };
    }

    private static Path key(Operand operand) {
        if (operand instanceof Size) {
            throw invalidOperator("size");
        }
        if (!(operand instanceof Path path)) {
            throw KIND.error("A key condition compares a key attribute with a value; found a value (" + operand
                    + ") where the key attribute belongs");
        }
        if (path.elements().size() != 1) {
            throw KIND.error("KeyConditionExpressions cannot have conditions on nested attributes; path: " + path);
        }
        return path;
    }

    private static ValueRef value(Operand operand) {
        if (operand instanceof Size) {
            throw invalidOperator("size");
        }
        if (!(operand instanceof ValueRef ref)) {
            throw KIND.error("A key condition compares a key attribute with a value (:placeholder); found the path "
                    + operand + " where the value belongs");
        }
        return ref;
    }

    private static ValidationException invalidOperator(String operator) {
        return KIND.error("Invalid operator used in KeyConditionExpression: " + operator);
    }
}
