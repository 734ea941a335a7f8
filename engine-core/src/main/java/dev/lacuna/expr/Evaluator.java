package dev.lacuna.expr;

import dev.lacuna.AttributeValue;
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
import dev.lacuna.expr.Ast.Literal;
import dev.lacuna.expr.Ast.Not;
import dev.lacuna.expr.Ast.Operand;
import dev.lacuna.expr.Ast.Or;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.Size;
import java.util.Map;

/**
 * Evaluates a bound condition against an item, with DynamoDB's semantics: a missing attribute makes every
 * comparison false except {@code <>} (a missing value equals nothing); values of different types are never
 * equal and never ordered; {@code <}, {@code <=}, {@code >}, {@code >=} and {@code BETWEEN} order only N, S and
 * B (see {@link Values}). Nothing here throws for a well-formed bound condition.
 */
final class Evaluator {
    private Evaluator() {
    }

    static boolean test(Condition c, Map<String, AttributeValue> item) {
        if (c instanceof And and) {
            for (Condition operand : and.operands()) {
                if (!test(operand, item)) {
                    return false;
                }
            }
            return true;
        }
        if (c instanceof Or or) {
            for (Condition operand : or.operands()) {
                if (test(operand, item)) {
                    return true;
                }
            }
            return false;
        }
        if (c instanceof Not not) {
            return !test(not.operand(), item);
        }
        if (c instanceof Compare compare) {
            return compare(compare, item);
        }
        if (c instanceof Between between) {
            AttributeValue value = operand(between.value(), item);
            AttributeValue lower = operand(between.lower(), item);
            AttributeValue upper = operand(between.upper(), item);
            if (value == null || lower == null || upper == null) {
                return false;
            }
            Integer low = Values.compare(value, lower);
            Integer high = Values.compare(value, upper);
            return low != null && high != null && low >= 0 && high <= 0;
        }
        if (c instanceof In in) {
            AttributeValue value = operand(in.value(), item);
            if (value == null) {
                return false;
            }
            for (Operand candidate : in.candidates()) {
                if (value.equals(operand(candidate, item))) {
                    return true;
                }
            }
            return false;
        }
        if (c instanceof AttributeExists exists) {
            return Values.get(item, exists.path()) != null;
        }
        if (c instanceof AttributeNotExists notExists) {
            return Values.get(item, notExists.path()) == null;
        }
        if (c instanceof AttributeType type) {
            AttributeValue value = operand(type.subject(), item);
            AttributeValue name = operand(type.type(), item);
            return value != null && name instanceof AttributeValue.S s && value.type().name().equals(s.value());
        }
        if (c instanceof BeginsWith beginsWith) {
            AttributeValue value = operand(beginsWith.subject(), item);
            AttributeValue prefix = operand(beginsWith.prefix(), item);
            return value != null && prefix != null && Values.beginsWith(value, prefix);
        }
        Contains contains = (Contains) c;
        AttributeValue value = operand(contains.subject(), item);
        AttributeValue operand = operand(contains.operand(), item);
        return value != null && operand != null && Values.contains(value, operand);
    }

    private static boolean compare(Compare compare, Map<String, AttributeValue> item) {
        AttributeValue left = operand(compare.left(), item);
        AttributeValue right = operand(compare.right(), item);
        if (left == null || right == null) {
            return compare.comparator() == Ast.Comparator.NE;
        }
        switch (compare.comparator()) {
            case EQ:
                return left.equals(right);
            case NE:
                return !left.equals(right);
            default:
                break;
        }
        Integer order = Values.compare(left, right);
        if (order == null) {
            return false;
        }
        return switch (compare.comparator()) {
            case LT -> order < 0;
            case LE -> order <= 0;
            case GT -> order > 0;
            default -> order >= 0;
        };
    }

    /** The value of a bound operand, or null if it names nothing in the item. */
    static AttributeValue operand(Operand operand, Map<String, AttributeValue> item) {
        if (operand instanceof Literal literal) {
            return literal.value();
        }
        if (operand instanceof Path path) {
            return Values.get(item, path);
        }
        if (operand instanceof Size size) {
            AttributeValue value = operand(size.operand(), item);
            return value == null ? null : Values.size(value);
        }
        throw new IllegalStateException("unbound operand " + operand);
    }
}
