package dev.lacuna.expr;

import static dev.lacuna.expr.Trees.path;
import static dev.lacuna.expr.Trees.v;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.ValidationException;
import dev.lacuna.expr.Ast.Arithmetic;
import dev.lacuna.expr.Ast.IfNotExists;
import dev.lacuna.expr.Ast.ListAppend;
import dev.lacuna.expr.Ast.SetValue;
import org.junit.jupiter.api.Test;

/**
 * The value of a SET action, as DynamoDB's update expression grammar has it: {@code value ::= operand |
 * operand '+' operand | operand '-' operand}, an operand being a path, a value or a function call whose
 * arguments are operands. So there is at most one {@code +} or {@code -} in a SET value, none inside a function's
 * arguments; parentheses may enclose an operand or the one addition (never twice over), and of the functions only
 * {@code if_not_exists} may stand inside another function or an addition.
 */
class SetValueGrammarTest {
    private static SetValue value(String expression) {
        return UpdateParser.parse("SET a = " + expression).set().get(0).value();
    }

    private static void assertRefused(String expression, String message) {
        assertThatThrownBy(() -> UpdateParser.parse("SET a = " + expression))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("Invalid UpdateExpression: " + message);
    }

    @Test
    void shouldAllowOnePlusOrMinusAndNoMore() {
        assertThat(value(":x + :y")).isEqualTo(new Arithmetic(v(":x"), true, v(":y")));
        assertThat(value("b - :y")).isEqualTo(new Arithmetic(path("b"), false, v(":y")));
        assertRefused(":x + :y + :z", "Syntax error; token: \"+\", near: \":y + :z\"");
        assertRefused(":x - :y + :z", "Syntax error; token: \"+\", near: \":y + :z\"");
        assertRefused("b + :y - :z", "Syntax error; token: \"-\", near: \":y - :z\"");
    }

    @Test
    void shouldAllowNoArithmeticInsideFunctionArguments() {
        assertRefused("if_not_exists(a, :x + :y)", "Syntax error; token: \"+\", near: \":x + :y\"");
        assertRefused("list_append(:x - :y, :z)", "Syntax error; token: \"-\", near: \":x - :y\"");
        assertRefused("if_not_exists(a, if_not_exists(b, :x + :y))", "Syntax error; token: \"+\"");
        assertThat(value("if_not_exists(a, :x) + :y"))
                .isEqualTo(new Arithmetic(new IfNotExists(path("a"), v(":x")), true, v(":y")));
    }

    @Test
    void shouldAllowParenthesesAroundAnOperandOrTheAddition() {
        assertThat(value("(:x + :y)")).isEqualTo(new Arithmetic(v(":x"), true, v(":y")));
        assertThat(value("(:x) - (b)")).isEqualTo(new Arithmetic(v(":x"), false, path("b")));
        assertThat(value("((:x) + :y)")).isEqualTo(new Arithmetic(v(":x"), true, v(":y")));
        assertThat(value("(:x)")).isEqualTo(v(":x"));
        assertThat(value("if_not_exists(a, (:x))")).isEqualTo(new IfNotExists(path("a"), v(":x")));
        assertRefused(":x + (:y + :z)", "Syntax error; token: \"+\", near: \":y + :z\"");
        assertRefused("(:x + :y) + :z", "Syntax error; token: \"+\", near: \") + :z\"");
        assertRefused("(:x + :y", "Syntax error; token: \"<EOF>\"");
        assertRefused("(:x", "Syntax error; token: \"<EOF>\"");
    }

    @Test
    void shouldRefuseParenthesesTwiceOver() {
        assertRefused("((:x))", "The expression has redundant parentheses;");
        assertRefused("((:x + :y))", "The expression has redundant parentheses;");
        assertRefused(":x + ((b))", "The expression has redundant parentheses;");
    }

    @Test
    void shouldNestOnlyIfNotExistsInsideAFunctionOrAnAddition() {
        assertThat(value("list_append(if_not_exists(l, :e), :v)"))
                .isEqualTo(new ListAppend(new IfNotExists(path("l"), v(":e")), v(":v")));
        assertThat(value("if_not_exists(a, if_not_exists(b, :v))"))
                .isEqualTo(new IfNotExists(path("a"), new IfNotExists(path("b"), v(":v"))));
        String notThisWay = "The function is not allowed to be used this way in an expression; function: list_append";
        assertRefused("list_append(list_append(:x, :y), :z)", notThisWay);
        assertRefused("if_not_exists(a, list_append(:x, :y))", notThisWay);
        assertRefused("list_append(:x, :y) + :z", notThisWay);
        assertRefused(":z - list_append(:x, :y)", notThisWay);
    }
}
