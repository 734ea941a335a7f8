package dev.lacuna.expr;

import dev.lacuna.ValidationException;
import dev.lacuna.expr.Ast.AddAction;
import dev.lacuna.expr.Ast.Arithmetic;
import dev.lacuna.expr.Ast.DeleteAction;
import dev.lacuna.expr.Ast.IfNotExists;
import dev.lacuna.expr.Ast.ListAppend;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.SetAction;
import dev.lacuna.expr.Ast.SetValue;
import dev.lacuna.expr.Ast.Update;
import dev.lacuna.expr.Ast.ValueRef;
import dev.lacuna.expr.Token.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Parses update expressions:
 * <pre>
 * update   := clause+                                    each of SET, REMOVE, ADD, DELETE at most once, any order
 * clause   := SET set ( ',' set )* | REMOVE path ( ',' path )*
 *           | ADD path :value ( ',' path :value )* | DELETE path :value ( ',' path :value )*
 * set      := path '=' value
 * value    := operand | arithmetic
 * arithmetic := operand ( '+' | '-' ) operand | '(' arithmetic ')'
 * operand  := path | :value | function | '(' operand ')'
 * function := if_not_exists '(' operand ',' operand ')' | list_append '(' operand ',' operand ')'
 * </pre>
 * This is DynamoDB's grammar: a SET value has at most one {@code +} or {@code -}, and a function's arguments
 * none; parentheses enclose an operand or the one addition, and never twice over ({@code ((:v))} is redundant,
 * see {@link TokenCursor#rejectRedundantParentheses()}). Of the two functions only {@code if_not_exists} may
 * stand inside the other or in an addition.
 */
final class UpdateParser {
    private final TokenCursor in;
    private final List<SetAction> set = new ArrayList<>();
    private final List<Path> remove = new ArrayList<>();
    private final List<AddAction> add = new ArrayList<>();
    private final List<DeleteAction> delete = new ArrayList<>();

    private UpdateParser(TokenCursor in) {
        this.in = in;
    }

    static Update parse(String source) {
        TokenCursor in = new TokenCursor(source, ExpressionKind.UPDATE);
        in.rejectRedundantParentheses();
        UpdateParser parser = new UpdateParser(in);
        parser.clauses();
        return new Update(parser.set, parser.remove, parser.add, parser.delete);
    }

    private void clauses() {
        boolean[] seen = new boolean[4];
        do {
            Token keyword = in.peek();
            String clause = keyword.type() == Type.NAME ? keyword.text().toUpperCase(Locale.ROOT) : "";
            int which = switch (clause) {
                case "SET" -> 0;
                case "REMOVE" -> 1;
                case "ADD" -> 2;
                case "DELETE" -> 3;
                default -> throw in.unexpected();
            };
            if (seen[which]) {
                throw in.kind.error("The \"" + clause + "\" section can only be used once in an update expression; (at char "
                        + keyword.start() + ")");
            }
            seen[which] = true;
            in.next();
            while (true) {
                switch (which) {
                    case 0 -> set.add(setAction());
                    case 1 -> remove.add(in.path());
                    case 2 -> add.add(new AddAction(in.path(), valueRef()));
                    default -> delete.add(new DeleteAction(in.path(), valueRef()));
                }
                if (!in.at(Type.COMMA)) {
                    break;
                }
                in.next();
            }
        } while (!in.at(Type.EOF));
        in.expectEnd();
    }

    private ValueRef valueRef() {
        return new ValueRef(in.expect(Type.VALUE_PLACEHOLDER).text());
    }

    private SetAction setAction() {
        Path path = in.path();
        in.expect(Type.EQ);
        return new SetAction(path, value());
    }

    /**
     * {@code value}: an operand, or one addition or subtraction of two. Leading parentheses are counted, not
     * recursed into, so that no input nests the parser deeper than its function calls (each an operator, at most
     * {@link ExpressionLimits#MAX_OPERATORS}): those closed right after the first operand enclose it, those still
     * open at the {@code +} or {@code -} enclose the whole addition.
     */
    private SetValue value() {
        int opened = openParentheses();
        Token first = in.peek();
        SetValue left = operandCore(false);
        int closed = 0;
        while (closed < opened && in.at(Type.RPAREN)) {
            in.next();
            closed++;
        }
        if (!in.at(Type.PLUS) && !in.at(Type.MINUS)) {
            if (closed < opened) {
                throw in.unexpected();
            }
            return left;
        }
        requireNestable(left, first);
        in.countOperator();
        boolean plus = in.next().type() == Type.PLUS;
        SetValue right = operand(true);
        for (int i = closed; i < opened; i++) {
            in.expect(Type.RPAREN);
        }
        return new Arithmetic(left, plus, right);
    }

    /**
     * {@code operand}: a path, value or function call, in as many parentheses as are opened before it; in the
     * arguments of a function or as the second operand of an addition ({@code nested}), a function call must be
     * {@code if_not_exists}.
     */
    private SetValue operand(boolean nested) {
        int opened = openParentheses();
        SetValue operand = operandCore(nested);
        for (int i = 0; i < opened; i++) {
            in.expect(Type.RPAREN);
        }
        return operand;
    }

    private int openParentheses() {
        int opened = 0;
        while (in.at(Type.LPAREN)) {
            in.next();
            opened++;
        }
        return opened;
    }

    /**
     * A path, value or function call. A {@code nested} function call must be {@code if_not_exists}, as in
     * DynamoDB; that of an addition's first operand is checked once the {@code +} is seen.
     */
    private SetValue operandCore(boolean nested) {
        if (in.atFunctionCall()) {
            Token name = in.peek();
            SetValue function = function();
            if (nested) {
                requireNestable(function, name);
            }
            return function;
        }
        if (in.at(Type.VALUE_PLACEHOLDER)) {
            return new ValueRef(in.next().text());
        }
        if (in.at(Type.NAME) || in.at(Type.NAME_PLACEHOLDER)) {
            return in.path();
        }
        throw in.unexpected();
    }

    private SetValue function() {
        Token name = in.peek();
        String function = name.text();
        if (!ConditionParser.UPDATE_FUNCTIONS.contains(function)) {
            throw at(name, ConditionParser.CONDITION_FUNCTIONS.contains(function) || function.equals("size")
                    ? "The function is not allowed in an update expression; function: " + function
                    : "Invalid function name; function: " + function);
        }
        in.countOperator();
        in.next();
        in.expect(Type.LPAREN);
        List<SetValue> args = new ArrayList<>();
        args.add(operand(true));
        while (in.at(Type.COMMA)) {
            in.next();
            args.add(operand(true));
        }
        in.expect(Type.RPAREN);
        if (args.size() != 2) {
            throw at(name, "Incorrect number of operands for operator or function; operator or function: " + function
                    + ", number of operands: " + args.size());
        }
        if (function.equals("list_append")) {
            return new ListAppend(args.get(0), args.get(1));
        }
        if (!(args.get(0) instanceof Path path)) {
            throw at(name, "Operator or function requires a document path; operator or function: " + function);
        }
        return new IfNotExists(path, args.get(1));
    }

    /**
     * Only {@code if_not_exists} may stand inside another function or an addition; DynamoDB refuses
     * {@code list_append} there ({@code list_append(list_append(:a, :b), :c)}, {@code list_append(:a, :b) + :n}).
     */
    private void requireNestable(SetValue value, Token at) {
        if (value instanceof ListAppend) {
            throw at(at, "The function is not allowed to be used this way in an expression; function: list_append");
        }
    }

    private ValidationException at(Token token, String detail) {
        return in.kind.error(detail + " (at char " + token.start() + ")");
    }
}
