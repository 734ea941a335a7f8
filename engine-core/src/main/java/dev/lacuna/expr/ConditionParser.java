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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
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
 *
 * <p>{@code or}, {@code and}, {@code not} and the parenthesised {@code primary} are parsed by one loop with an
 * explicit stack of open groups, not by recursion, so that parentheses and {@code NOT} may nest as deep as 4 KB
 * allows (DynamoDB bounds nesting only by the expression's size and operator count) without the parser's depth
 * following the input's. What recursion is left, a function call inside an operand, costs an operator per level.
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

    /**
     * One level of the grammar's {@code or}: the top level, or a parenthesised group. {@code nots} is the number
     * of {@code NOT}s written before the group's {@code (}, which apply to the group once it is closed.
     */
    private static final class Group {
        final int nots;
        final List<Condition> or = new ArrayList<>();
        List<Condition> and = new ArrayList<>();
        int pendingNots;

        Group(int nots) {
            this.nots = nots;
        }
    }

    /**
     * {@code or} at the top level, with every nested group: the loop reads the {@code NOT}s and {@code (} before
     * a primary, pushing a {@link Group} for each {@code (}, then the {@code AND}s, {@code OR}s and {@code )}
     * after it, popping a group at each {@code )}. It builds the tree the recursive grammar describes: a run of
     * {@code AND}s (or {@code OR}s) in one group is one node, and {@code NOT} applies to the primary after it.
     */
    private Condition or() {
        Deque<Group> open = new ArrayDeque<>();
        Group group = new Group(0);
        while (true) {
            while (in.atKeyword("NOT")) {
                in.countOperator();
                in.next();
                group.pendingNots++;
            }
            if (in.at(Type.LPAREN)) {
                in.next();
                open.push(group);
                Group inner = new Group(group.pendingNots);
                group.pendingNots = 0;
                group = inner;
                continue;
            }
            Condition unit = negate(primary(), group.pendingNots);
            group.pendingNots = 0;
            while (true) {
                group.and.add(unit);
                if (in.atKeyword("AND")) {
                    in.countOperator();
                    in.next();
                    break;
                }
                group.or.add(join(group.and, true));
                group.and = new ArrayList<>();
                if (in.atKeyword("OR")) {
                    in.countOperator();
                    in.next();
                    break;
                }
                Condition whole = join(group.or, false);
                if (open.isEmpty()) {
                    return whole;
                }
                in.expect(Type.RPAREN);
                unit = negate(whole, group.nots);
                group = open.pop();
            }
        }
    }

    private static Condition join(List<Condition> operands, boolean and) {
        if (operands.size() == 1) {
            return operands.get(0);
        }
        return and ? new And(operands) : new Or(operands);
    }

    private static Condition negate(Condition condition, int nots) {
        Condition result = condition;
        for (int i = 0; i < nots; i++) {
            result = new Not(result);
        }
        return result;
    }

    /** A comparison, BETWEEN, IN or condition function: the grammar's {@code primary} but for a group. */
    private Condition primary() {
        if (in.atFunctionCall() && !in.peek().text().equals("size")) {
            Token name = in.peek();
            Condition function = conditionFunction();
            // DynamoDB parses "attribute_exists(a) < :v", then refuses a boolean function as an operand.
            if (comparator(in.peek()) != null || in.atKeyword("BETWEEN") || in.atKeyword("IN")) {
                throw notThisWay(name);
            }
            return function;
        }
        Token start = in.peek();
        Operand left = operand();
        Token t = in.peek();
        Comparator comparator = comparator(t);
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
            return new In(left, inList(t));
        }
        // DynamoDB parses "size(a)" as a condition of its own, then refuses it: size is not a boolean function.
        if (left instanceof Size && (t.type() == Type.EOF || t.type() == Type.RPAREN || t.isKeyword("AND")
                || t.isKeyword("OR"))) {
            throw notThisWay(start);
        }
        throw in.unexpected();
    }

    /** The comparator {@code t} is, or null. */
    private static Comparator comparator(Token t) {
        return switch (t.type()) {
            case EQ -> Comparator.EQ;
            case NE -> Comparator.NE;
            case LT -> Comparator.LT;
            case LE -> Comparator.LE;
            case GT -> Comparator.GT;
            case GE -> Comparator.GE;
            default -> null;
        };
    }

    /** A function written where DynamoDB's grammar has it but its return type does not fit. */
    private ValidationException notThisWay(Token name) {
        return at(name, "The function is not allowed to be used this way in an expression; function: " + name.text());
    }

    /** The candidates of {@code IN}, at most {@link ExpressionLimits#MAX_IN_OPERANDS} (counted once all are read). */
    private List<Operand> inList(Token keyword) {
        in.expect(Type.LPAREN);
        List<Operand> candidates = new ArrayList<>();
        candidates.add(operand());
        while (in.at(Type.COMMA)) {
            in.next();
            candidates.add(operand());
        }
        in.expect(Type.RPAREN);
        if (candidates.size() > ExpressionLimits.MAX_IN_OPERANDS) {
            throw at(keyword, "The IN operator is provided with too many operands; number of operands: "
                    + candidates.size());
        }
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

    /** {@code '(' operand ( ',' operand )* ')'}. */
    private List<Operand> arguments() {
        in.expect(Type.LPAREN);
        List<Operand> args = new ArrayList<>();
        args.add(operand());
        while (in.at(Type.COMMA)) {
            in.next();
            args.add(operand());
        }
        in.expect(Type.RPAREN);
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
            return at(name, "The function is not allowed in a condition expression; function: " + name.text());
        }
        return at(name, "Invalid function name; function: " + name.text());
    }

    private ValidationException at(Token token, String detail) {
        return in.kind.error(detail + " (at char " + token.start() + ")");
    }
}
