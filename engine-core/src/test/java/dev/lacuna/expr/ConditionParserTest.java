package dev.lacuna.expr;

import static dev.lacuna.expr.Trees.and;
import static dev.lacuna.expr.Trees.cmp;
import static dev.lacuna.expr.Trees.not;
import static dev.lacuna.expr.Trees.or;
import static dev.lacuna.expr.Trees.path;
import static dev.lacuna.expr.Trees.v;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.lacuna.ValidationException;
import dev.lacuna.expr.Ast.AttributeExists;
import dev.lacuna.expr.Ast.AttributeNotExists;
import dev.lacuna.expr.Ast.AttributeType;
import dev.lacuna.expr.Ast.BeginsWith;
import dev.lacuna.expr.Ast.Between;
import dev.lacuna.expr.Ast.Condition;
import dev.lacuna.expr.Ast.Contains;
import dev.lacuna.expr.Ast.In;
import dev.lacuna.expr.Ast.Size;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ConditionParserTest {

    static Stream<Arguments> validConditions() {
        var a = cmp(path("a"), "=", v(":v"));
        var b = cmp(path("b"), "=", v(":w"));
        var c = cmp(path("c"), "=", v(":x"));
        return Stream.of(
                arguments("a = :v", a),
                arguments("  a   =:v  ", a),
                arguments("a <> :v", cmp(path("a"), "<>", v(":v"))),
                arguments("a < :v", cmp(path("a"), "<", v(":v"))),
                arguments("a <= :v", cmp(path("a"), "<=", v(":v"))),
                arguments("a > :v", cmp(path("a"), ">", v(":v"))),
                arguments("a >= :v", cmp(path("a"), ">=", v(":v"))),
                arguments("#n.b[2].c >= :v", cmp(path("#n", "b", 2, "c"), ">=", v(":v"))),
                arguments("a.b.c[1][2] = :v", cmp(path("a", "b", "c", 1, 2), "=", v(":v"))),
                arguments("a.b = c[0]", cmp(path("a", "b"), "=", path("c", 0))),
                arguments(":a = :b", cmp(v(":a"), "=", v(":b"))),
                arguments("a BETWEEN :lo AND :hi", new Between(path("a"), v(":lo"), v(":hi"))),
                arguments("a between :lo and :hi", new Between(path("a"), v(":lo"), v(":hi"))),
                arguments("a IN (:x, :y, b)", new In(path("a"), List.of(v(":x"), v(":y"), path("b")))),
                arguments("a in (:x)", new In(path("a"), List.of(v(":x")))),
                arguments("attribute_exists(a.b)", new AttributeExists(path("a", "b"))),
                arguments("attribute_not_exists (#a)", new AttributeNotExists(path("#a"))),
                arguments("attribute_type(a, :t)", new AttributeType(path("a"), v(":t"))),
                arguments("begins_with(a, :p)", new BeginsWith(path("a"), v(":p"))),
                arguments("contains(tags, :t)", new Contains(path("tags"), v(":t"))),
                arguments("size(a) > :n", cmp(new Size(path("a")), ">", v(":n"))),
                arguments("a = :v AND b = :w OR c = :x", or(and(a, b), c)),
                arguments("a = :v OR b = :w AND c = :x", or(a, and(b, c))),
                arguments("(a = :v OR b = :w) AND c = :x", and(or(a, b), c)),
                arguments("a = :v AND b = :w AND c = :x", and(a, b, c)),
                arguments("a = :v or b = :w or c = :x", or(a, b, c)),
                arguments("NOT a = :v AND b = :w", and(not(a), b)),
                arguments("NOT NOT a = :v", not(not(a))),
                arguments("not (a = :v or b = :w)", not(or(a, b))),
                arguments("(a = :v)", a),
                arguments("a BETWEEN :x AND :y AND b = :w",
                        and(new Between(path("a"), v(":x"), v(":y")), b)),
                arguments("(a = :v) AND (b = :w)", and(a, b)),
                arguments("((a = :v) AND (b = :w))", and(a, b)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validConditions")
    void shouldParseValidCondition(String expression, Condition expected) {
        assertThat(ConditionParser.parse(expression, ExpressionKind.CONDITION)).isEqualTo(expected);
    }

    static Stream<Arguments> invalidConditions() {
        return Stream.of(
                arguments("", "The expression can not be empty;"),
                arguments("   ", "The expression can not be empty;"),
                arguments("a =", "Syntax error; token: \"<EOF>\", near: \"=\""),
                arguments("a = :v AND", "token: \"<EOF>\""),
                arguments("= :v", "token: \"=\", near: \"= :v\""),
                arguments("a == :v", "token: \"=\""),
                arguments("a = :v OR OR b = :w", "token: \"OR\""),
                arguments("a", "token: \"<EOF>\""),
                arguments("a :v", "token: \":v\", near: \"a :v\""),
                arguments("a = :v)", "token: \")\""),
                arguments("(a = :v", "token: \"<EOF>\""),
                arguments("((a = :v))", "The expression has redundant parentheses;"),
                arguments("((a = :v)) AND b = :w", "redundant parentheses"),
                arguments("a = 1", "token: \"1\""),
                arguments("a = 'x'", "token: \"'\""),
                arguments("a = \"x\"", "token: \"\"\""),
                arguments("a != :v", "token: \"!\""),
                arguments("a = :v;", "token: \";\""),
                arguments("# = :v", "token: \"#\""),
                arguments("a = :", "token: \":\""),
                arguments("a[x] = :v", "token: \"x\""),
                arguments("a[-1] = :v", "token: \"-\""),
                arguments("a[] = :v", "token: \"]\""),
                arguments("a[99999999999] = :v", "List index is not within the allowable range; index: [99999999999]"),
                arguments("a. = :v", "token: \"=\""),
                arguments(".a = :v", "token: \".\""),
                arguments("1a = :v", "token: \"1\""),
                arguments("ä = :v", "token: \"ä\""),
                arguments("a = :v\u0000", "token: \"\u0000\""),
                arguments("foo(a)", "Invalid function name; function: foo"),
                arguments("ATTRIBUTE_EXISTS(a)", "Invalid function name; function: ATTRIBUTE_EXISTS"),
                arguments("Size(a) = :v", "Invalid function name; function: Size"),
                arguments("list_append(a, :v) = :w", "The function is not allowed in a condition expression; function: list_append"),
                arguments("if_not_exists(a, :v)", "The function is not allowed in a condition expression; function: if_not_exists"),
                arguments("attribute_exists(:v)",
                        "Operator or function requires a document path; operator or function: attribute_exists"),
                arguments("attribute_exists(a, b)", "Incorrect number of operands for operator or function;"
                        + " operator or function: attribute_exists, number of operands: 2"),
                arguments("attribute_type(a, b)", "requires an expression attribute value"),
                arguments("begins_with(a)", "operator or function: begins_with, number of operands: 1"),
                arguments("contains(a, :b, :c)", "operator or function: contains, number of operands: 3"),
                arguments("a = attribute_exists(b)",
                        "The function is not allowed to be used this way in an expression; function: attribute_exists"),
                arguments("size(a)", "The function is not allowed to be used this way in an expression; function: size"),
                arguments("attribute_exists()", "token: \")\""),
                arguments("a BETWEEN :x", "token: \"<EOF>\""),
                arguments("a BETWEEN :x OR :y", "token: \"OR\""),
                arguments("a IN :x", "token: \":x\""),
                arguments("a IN ()", "token: \")\""),
                arguments("a IN (:x,)", "token: \")\""),
                arguments("AND = :v", "token: \"AND\""),
                arguments("a = :v b = :w", "token: \"b\""),
                arguments("a = :v AND (b = :w", "token: \"<EOF>\""),
                arguments("NOT", "token: \"<EOF>\""),
                arguments("a = :v NOT b = :w", "token: \"NOT\""),
                arguments("name = :v", "Attribute name is a reserved keyword; reserved keyword: name"),
                arguments("a.size = :v", "reserved keyword: size"),
                arguments("a = :v AND Status = :w", "reserved keyword: Status"),
                arguments("size(data) > :n", "reserved keyword: data"),
                // a syntax error wins over a reserved word, as in DynamoDB
                arguments("name = ", "token: \"<EOF>\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidConditions")
    void shouldRejectInvalidCondition(String expression, String message) {
        assertThatThrownBy(() -> ConditionParser.parse(expression, ExpressionKind.CONDITION))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("Invalid ConditionExpression: ")
                .hasMessageContaining(message);
    }

    @Test
    void shouldSayWhereASyntaxErrorIs() {
        assertThatThrownBy(() -> ConditionParser.parse("a = :v AND AND b = :w", ExpressionKind.CONDITION))
                .hasMessage("Invalid ConditionExpression: Syntax error; token: \"AND\", near: \"AND AND b\" (at char 11)");
    }

    @Test
    void shouldNameTheFilterInFilterErrors() {
        assertThatThrownBy(() -> ConditionParser.parse("a =", ExpressionKind.FILTER))
                .hasMessage("Invalid FilterExpression: Syntax error; token: \"<EOF>\", near: \"=\" (at char 3)");
    }

    @Test
    void shouldReportTheFirstReservedWord() {
        assertThatThrownBy(() -> ConditionParser.parse("year = :v AND month = :w", ExpressionKind.CONDITION))
                .hasMessage("Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: year");
    }

    @Test
    void shouldAcceptReservedWordsThroughPlaceholders() {
        assertThat(ConditionParser.parse("#name = :v AND #data.#size > :n", ExpressionKind.CONDITION))
                .isEqualTo(and(cmp(path("#name"), "=", v(":v")), cmp(path("#data", "#size"), ">", v(":n"))));
    }

    @Test
    void shouldTreatKeywordsCaseInsensitivelyButFunctionNamesNot() {
        assertThat(ConditionParser.parse("a = :v aNd NoT b = :w", ExpressionKind.CONDITION))
                .isEqualTo(and(cmp(path("a"), "=", v(":v")), not(cmp(path("b"), "=", v(":w")))));
        assertThatThrownBy(() -> ConditionParser.parse("Begins_With(a, :p)", ExpressionKind.CONDITION))
                .hasMessageContaining("Invalid function name; function: Begins_With");
    }
}
