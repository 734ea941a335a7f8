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
 * value    := operand ( ( '+' | '-' ) operand )*
 * operand  := path | :value | '(' value ')'
 *           | if_not_exists '(' path ',' value ')' | list_append '(' value ',' value ')'
 * </pre>
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
        UpdateParser parser = new UpdateParser(new TokenCursor(source, ExpressionKind.UPDATE));
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

    private SetValue value() {
        SetValue value = operand();
        while (in.at(Type.PLUS) || in.at(Type.MINUS)) {
            in.countOperator();
            boolean plus = in.next().type() == Type.PLUS;
            value = new Arithmetic(value, plus, operand());
        }
        return value;
    }

    private SetValue operand() {
        if (in.at(Type.LPAREN)) {
            in.enter();
            in.next();
            SetValue inner = value();
            in.expect(Type.RPAREN);
            in.leave();
            return inner;
        }
        if (in.atFunctionCall()) {
            return function();
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
        in.enter();
        in.expect(Type.LPAREN);
        List<SetValue> args = new ArrayList<>();
        args.add(value());
        while (in.at(Type.COMMA)) {
            in.next();
            args.add(value());
        }
        in.expect(Type.RPAREN);
        in.leave();
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

    private ValidationException at(Token token, String detail) {
        return in.kind.error(detail + " (at char " + token.start() + ")");
    }
}
