package dev.lacuna.expr;

import dev.lacuna.ValidationException;
import dev.lacuna.expr.Ast.And;
import dev.lacuna.expr.Ast.AttributeExists;
import dev.lacuna.expr.Ast.AttributeNotExists;
import dev.lacuna.expr.Ast.AttributeType;
import dev.lacuna.expr.Ast.BeginsWith;
import dev.lacuna.expr.Ast.Between;
import dev.lacuna.expr.Ast.Comparator;
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
import dev.lacuna.expr.Token.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Parses conditions, filters and (before {@link KeyConditionParser} narrows them) key conditions:
 * <pre>
 * or       := and ( OR and )*
 * and      := not ( AND not )*
 * not      := NOT not | primary
 * primary  := '(' or ')'
 *           | function '(' operand ( ',' operand )* ')'      attribute_exists, attribute_not_exists,
 *                                                            attribute_type, begins_with, contains
 *           | operand comparator operand                     = &lt;&gt; &lt; &lt;= &gt; &gt;=
 *           | operand BETWEEN operand AND operand
 *           | operand IN '(' operand ( ',' operand )* ')'
 * operand  := path | :value | size '(' operand ')'
 * </pre>
 * Keywords ignore case; function names do not (as in DynamoDB).
 */
final class ConditionParser {
    static final Set<String> CONDITION_FUNCTIONS =
            Set.of("attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains");
    static final Set<String> UPDATE_FUNCTIONS = Set.of("if_not_exists", "list_append");

    private final TokenCursor in;

    private ConditionParser(TokenCursor in) {
        this.in = in;
    }

    /** Parses {@code source} as a condition of {@code kind} (CONDITION, FILTER or KEY_CONDITION). */
    static Condition parse(String source, ExpressionKind kind) {
        TokenCursor in = new TokenCursor(source, kind);
        in.rejectRedundantParentheses();
        Condition condition = new ConditionParser(in).or();
        in.expectEnd();
        return condition;
    }

    private Condition or() {
        List<Condition> operands = new ArrayList<>();
        operands.add(and());
        while (in.atKeyword("OR")) {
            in.countOperator();
            in.next();
            operands.add(and());
        }
        return operands.size() == 1 ? operands.get(0) : new Or(operands);
    }

    private Condition and() {
        List<Condition> operands = new ArrayList<>();
        operands.add(not());
        while (in.atKeyword("AND")) {
            in.countOperator();
            in.next();
            operands.add(not());
        }
        return operands.size() == 1 ? operands.get(0) : new And(operands);
    }

    private Condition not() {
        if (!in.atKeyword("NOT")) {
            return primary();
        }
        in.countOperator();
        in.enter();
        in.next();
        Condition operand = not();
        in.leave();
        return new Not(operand);
    }

    private Condition primary() {
        if (in.at(Type.LPAREN)) {
            in.enter();
            in.next();
            Condition inner = or();
            in.expect(Type.RPAREN);
            in.leave();
            return inner;
        }
        if (in.atFunctionCall() && !in.peek().text().equals("size")) {
            return conditionFunction();
        }
        Operand left = operand();
        Token t = in.peek();
        Comparator comparator = switch (t.type()) {
            case EQ -> Comparator.EQ;
            case NE -> Comparator.NE;
            case LT -> Comparator.LT;
            case LE -> Comparator.LE;
            case GT -> Comparator.GT;
            case GE -> Comparator.GE;
            default -> null;
        };
        if (comparator != null) {
            in.countOperator();
            in.next();
            return new Compare(left, comparator, operand());
        }
        if (t.isKeyword("BETWEEN")) {
            in.countOperator();
            in.next();
            Operand lower = operand();
            in.expectKeyword("AND");
            return new Between(left, lower, operand());
        }
        if (t.isKeyword("IN")) {
            in.countOperator();
            in.next();
            return new In(left, inList());
        }
        throw in.unexpected();
    }

    private List<Operand> inList() {
        in.expect(Type.LPAREN);
        List<Operand> candidates = new ArrayList<>();
        candidates.add(operand());
        while (in.at(Type.COMMA)) {
            in.next();
            if (candidates.size() == ExpressionLimits.MAX_IN_OPERANDS) {
                throw in.errorHere("The IN operator is provided with too many operands; number of operands: more than "
                        + ExpressionLimits.MAX_IN_OPERANDS + ", maximum: " + ExpressionLimits.MAX_IN_OPERANDS);
            }
            candidates.add(operand());
        }
        in.expect(Type.RPAREN);
        return candidates;
    }

    private Condition conditionFunction() {
        Token name = in.peek();
        String function = name.text();
        if (!CONDITION_FUNCTIONS.contains(function)) {
            throw functionError(name);
        }
        in.countOperator();
        in.next();
        List<Operand> args = arguments();
        return switch (function) {
            case "attribute_exists" -> new AttributeExists(path(name, only(name, args, 1), 0));
            case "attribute_not_exists" -> new AttributeNotExists(path(name, only(name, args, 1), 0));
            case "attribute_type" -> {
                only(name, args, 2);
                if (!(args.get(1) instanceof ValueRef)) {
                    throw at(name, "Operator or function requires an expression attribute value as its second operand;"
                            + " operator or function: attribute_type");
                }
                yield new AttributeType(args.get(0), args.get(1));
            }
            case "begins_with" -> new BeginsWith(only(name, args, 2).get(0), args.get(1));
            default -> new Contains(only(name, args, 2).get(0), args.get(1));
        };
    }

    private Operand operand() {
        if (in.atFunctionCall()) {
            Token name = in.peek();
            if (!name.text().equals("size")) {
                if (CONDITION_FUNCTIONS.contains(name.text())) {
                    throw at(name, "The function is not allowed to be used this way in an expression; function: "
                            + name.text());
                }
                throw functionError(name);
            }
            in.countOperator();
            in.next();
            List<Operand> args = arguments();
            return new Size(only(name, args, 1).get(0));
        }
        if (in.at(Type.VALUE_PLACEHOLDER)) {
            return new ValueRef(in.next().text());
        }
        if (in.at(Type.NAME) || in.at(Type.NAME_PLACEHOLDER)) {
            return in.path();
        }
        throw in.unexpected();
    }

    /** {@code '(' operand ( ',' operand )* ')'}, one nesting level deeper. */
    private List<Operand> arguments() {
        in.enter();
        in.expect(Type.LPAREN);
        List<Operand> args = new ArrayList<>();
        args.add(operand());
        while (in.at(Type.COMMA)) {
            in.next();
            args.add(operand());
        }
        in.expect(Type.RPAREN);
        in.leave();
        return args;
    }

    private List<Operand> only(Token function, List<Operand> args, int count) {
        if (args.size() != count) {
            throw at(function, "Incorrect number of operands for operator or function; operator or function: "
                    + function.text() + ", number of operands: " + args.size());
        }
        return args;
    }

    private Path path(Token function, List<Operand> args, int index) {
        if (args.get(index) instanceof Path p) {
            return p;
        }
        throw at(function, "Operator or function requires a document path; operator or function: " + function.text());
    }

    private ValidationException functionError(Token name) {
        if (UPDATE_FUNCTIONS.contains(name.text())) {
            return at(name, "The function is not allowed in a " + in.kind.parameter() + "; function: " + name.text());
        }
        return at(name, "Invalid function name; function: " + name.text());
    }

    private ValidationException at(Token token, String detail) {
        return in.kind.error(detail + " (at char " + token.start() + ")");
    }
}
