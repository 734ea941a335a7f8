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
import dev.lacuna.expr.Ast.Not;
import dev.lacuna.expr.Ast.Operand;
import dev.lacuna.expr.Ast.Or;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.Size;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A parsed and bound condition expression (of a put, update, delete or transaction check) or filter
 * expression (of a query or scan). Immutable and thread-safe.
 *
 * <p>{@link #test} follows DynamoDB: a comparison with a missing attribute is false, except {@code <>}, which
 * is true; values of different types are unequal and unordered (so {@code <} and friends are false, never an
 * error); {@code <}, {@code <=}, {@code >}, {@code >=} and {@code BETWEEN} order N by value, S by UTF-8 bytes and
 * B by unsigned bytes; {@code begins_with} applies to S and B; {@code contains} finds a substring of an S, a
 * byte subsequence of a B, an element of a set or of a list; {@code size} counts an S in UTF-16 code units, a B in bytes, and the elements
 * of sets, lists and maps.
 */
public final class ConditionExpression {
    private final String text;
    private final Condition condition;

    private ConditionExpression(String text, Condition condition) {
        this.text = text;
        this.condition = condition;
    }

    /**
     * Parses a {@code ConditionExpression}, resolving its placeholders in {@code placeholders} (and marking
     * them used).
     *
     * @throws dev.lacuna.ValidationException if it is malformed or over a limit, uses a reserved word or an
     *                                        undefined placeholder, or has an operand of a type its operator
     *                                        never accepts; the message starts {@code Invalid ConditionExpression:}
     */
    public static ConditionExpression parseCondition(String expression, Placeholders placeholders) {
        return parse(expression, placeholders, ExpressionKind.CONDITION);
    }

    /** As {@link #parseCondition(String, Placeholders)}, taking the parse from {@code cache} when it has it. */
    public static ConditionExpression parseCondition(String expression, Placeholders placeholders, ParseCache cache) {
        Condition parsed = cache.condition(expression);
        return new ConditionExpression(expression,
                new Binder(placeholders, ExpressionKind.CONDITION).condition(parsed));
    }

    /** As {@link #parseCondition}, for a {@code FilterExpression} (which errors name). */
    public static ConditionExpression parseFilter(String expression, Placeholders placeholders) {
        return parse(expression, placeholders, ExpressionKind.FILTER);
    }

    /** As {@link #parseFilter(String, Placeholders)}, taking the parse from {@code cache} when it has it. */
    public static ConditionExpression parseFilter(String expression, Placeholders placeholders, ParseCache cache) {
        Condition parsed = cache.filter(expression);
        return new ConditionExpression(expression, new Binder(placeholders, ExpressionKind.FILTER).condition(parsed));
    }

    static ConditionExpression parse(String expression, Placeholders placeholders, ExpressionKind kind) {
        Condition parsed = ConditionParser.parse(expression, kind);
        return new ConditionExpression(expression, new Binder(placeholders, kind).condition(parsed));
    }

    /**
     * Whether {@code item} satisfies the condition. Pass an empty map for an item that does not exist.
     * Never throws for a non-null item.
     */
    public boolean test(Map<String, AttributeValue> item) {
        return Evaluator.test(condition, item);
    }

    /** The top-level attributes the expression refers to, in the order first named. */
    public Set<String> attributeNames() {
        Set<String> names = new LinkedHashSet<>();
        collect(condition, names);
        return Collections.unmodifiableSet(names);
    }

    Condition ast() {
        return condition;
    }

    private static void collect(Condition c, Set<String> names) {
        if (c instanceof And and) {
            and.operands().forEach(o -> collect(o, names));
        } else if (c instanceof Or or) {
            or.operands().forEach(o -> collect(o, names));
        } else if (c instanceof Not not) {
            collect(not.operand(), names);
        } else if (c instanceof Compare compare) {
            collect(List.of(compare.left(), compare.right()), names);
        } else if (c instanceof Between between) {
            collect(List.of(between.value(), between.lower(), between.upper()), names);
        } else if (c instanceof In in) {
            collect(List.of(in.value()), names);
            collect(in.candidates(), names);
        } else if (c instanceof AttributeExists exists) {
            names.add(exists.path().topLevelName());
        } else if (c instanceof AttributeNotExists notExists) {
            names.add(notExists.path().topLevelName());
        } else if (c instanceof AttributeType type) {
            collect(List.of(type.subject()), names);
        } else if (c instanceof BeginsWith beginsWith) {
            collect(List.of(beginsWith.subject(), beginsWith.prefix()), names);
        } else if (c instanceof Contains contains) {
            collect(List.of(contains.subject(), contains.operand()), names);
        }
    }

    private static void collect(List<Operand> operands, Set<String> names) {
        for (Operand operand : operands) {
            if (operand instanceof Path path) {
                names.add(path.topLevelName());
            } else if (operand instanceof Size size) {
                collect(List.of(size.operand()), names);
            }
        }
    }

    @Override
    public String toString() {
        return text;
    }
}
