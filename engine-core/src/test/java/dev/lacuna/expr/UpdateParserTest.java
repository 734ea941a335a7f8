package dev.lacuna.expr;

import static dev.lacuna.expr.Trees.path;
import static dev.lacuna.expr.Trees.v;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.lacuna.ValidationException;
import dev.lacuna.expr.Ast.AddAction;
import dev.lacuna.expr.Ast.Arithmetic;
import dev.lacuna.expr.Ast.DeleteAction;
import dev.lacuna.expr.Ast.IfNotExists;
import dev.lacuna.expr.Ast.ListAppend;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.SetAction;
import dev.lacuna.expr.Ast.Update;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class UpdateParserTest {

    private static Update update(List<SetAction> set, List<Path> remove, List<AddAction> add, List<DeleteAction> delete) {
        return new Update(set, remove, add, delete);
    }

    private static Update set(SetAction... actions) {
        return update(List.of(actions), List.of(), List.of(), List.of());
    }

    static Stream<Arguments> validUpdates() {
        return Stream.of(
                arguments("SET a = :v", set(new SetAction(path("a"), v(":v")))),
                arguments("set a = :v", set(new SetAction(path("a"), v(":v")))),
                arguments("SET a = :v, b = b + :n, c = list_append(c, :l), d = if_not_exists(d, :z)", set(
                        new SetAction(path("a"), v(":v")),
                        new SetAction(path("b"), new Arithmetic(path("b"), true, v(":n"))),
                        new SetAction(path("c"), new ListAppend(path("c"), v(":l"))),
                        new SetAction(path("d"), new IfNotExists(path("d"), v(":z"))))),
                arguments("SET a = b - :n", set(new SetAction(path("a"), new Arithmetic(path("b"), false, v(":n"))))),
                arguments("SET a = (:x - :y)", set(new SetAction(path("a"), new Arithmetic(v(":x"), false, v(":y"))))),
                arguments("SET l = list_append(if_not_exists(l, :empty), :new)", set(new SetAction(path("l"),
                        new ListAppend(new IfNotExists(path("l"), v(":empty")), v(":new"))))),
                arguments("SET #a.b[1] = c.d", set(new SetAction(path("#a", "b", 1), path("c", "d")))),
                arguments("SET a=:v", set(new SetAction(path("a"), v(":v")))),
                arguments("REMOVE x, y[1]", update(List.of(), List.of(path("x"), path("y", 1)), List.of(), List.of())),
                arguments("ADD hits :n", update(List.of(), List.of(),
                        List.of(new AddAction(path("hits"), v(":n"))), List.of())),
                arguments("ADD #counter :n, tags :ss", update(List.of(), List.of(), List.of(
                        new AddAction(path("#counter"), v(":n")), new AddAction(path("tags"), v(":ss"))), List.of())),
                arguments("DELETE tags :ss", update(List.of(), List.of(), List.of(),
                        List.of(new DeleteAction(path("tags"), v(":ss"))))),
                arguments("DELETE tags :ss SET a = :v REMOVE b ADD c :n", update(
                        List.of(new SetAction(path("a"), v(":v"))), List.of(path("b")),
                        List.of(new AddAction(path("c"), v(":n"))), List.of(new DeleteAction(path("tags"), v(":ss"))))),
                arguments("remove a add b :n", update(List.of(), List.of(path("a")),
                        List.of(new AddAction(path("b"), v(":n"))), List.of())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validUpdates")
    void shouldParseValidUpdate(String expression, Update expected) {
        assertThat(UpdateParser.parse(expression)).isEqualTo(expected);
    }

    static Stream<Arguments> invalidUpdates() {
        return Stream.of(
                arguments("", "The expression can not be empty;"),
                arguments("a = :v", "Syntax error; token: \"a\""),
                arguments("SET", "token: \"<EOF>\""),
                arguments("SET a = :v,", "token: \"<EOF>\", near: \",\""),
                arguments("SET a :v", "token: \":v\""),
                arguments("SET a = ", "token: \"<EOF>\""),
                arguments("SET a = :v SET b = :w", "The \"SET\" section can only be used once in an update expression;"),
                arguments("REMOVE a REMOVE b", "The \"REMOVE\" section can only be used once"),
                arguments("ADD a :v add b :w", "The \"ADD\" section can only be used once"),
                arguments("DELETE a :v DELETE b :w", "The \"DELETE\" section can only be used once"),
                arguments("SET a = :v, REMOVE b", "token: \"REMOVE\""),
                arguments("ADD a b", "token: \"b\""),
                arguments("ADD a", "token: \"<EOF>\""),
                arguments("DELETE a 1", "token: \"1\""),
                arguments("REMOVE :v", "token: \":v\""),
                arguments("REMOVE a = :v", "token: \"=\""),
                arguments("SET a = :v + ", "token: \"<EOF>\""),
                arguments("SET a = 1", "token: \"1\""),
                arguments("SET a = foo(b)", "Invalid function name; function: foo"),
                arguments("SET a = size(b)", "The function is not allowed in an update expression; function: size"),
                arguments("SET a = attribute_exists(b)", "not allowed in an update expression; function: attribute_exists"),
                arguments("SET a = if_not_exists(:v, :w)",
                        "Operator or function requires a document path; operator or function: if_not_exists"),
                arguments("SET a = if_not_exists(a)", "Incorrect number of operands for operator or function;"
                        + " operator or function: if_not_exists, number of operands: 1"),
                arguments("SET a = list_append(:v)", "operator or function: list_append, number of operands: 1"),
                arguments("SET a = list_append(:a, :b, :c)", "number of operands: 3"),
                arguments("SET a = (b + :c", "token: \"<EOF>\""),
                arguments("SET a = :x + :y - :z", "token: \"-\", near: \":y - :z\""),
                arguments("SET a = :x - (:y - :z)", "token: \"-\", near: \":y - :z\""),
                arguments("SET name = :v", "Attribute name is a reserved keyword; reserved keyword: name"),
                arguments("REMOVE a.value", "reserved keyword: value"),
                arguments("SET a = :v REMOVE counter", "reserved keyword: counter"),
                // COUNTER is reserved, so the README's "ADD counter :n" needs a placeholder
                arguments("ADD counter :n", "reserved keyword: counter"),
                // DynamoDB reports the syntax error, not the reserved word VALUE
                arguments("SET path = VALUE 1", "Syntax error; token: \"1\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidUpdates")
    void shouldRejectInvalidUpdate(String expression, String message) {
        assertThatThrownBy(() -> UpdateParser.parse(expression))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("Invalid UpdateExpression: ")
                .hasMessageContaining(message);
    }

    @Test
    void shouldSayWhereAClauseRepeats() {
        assertThatThrownBy(() -> UpdateParser.parse("SET a = :v SET b = :w"))
                .hasMessage("Invalid UpdateExpression: The \"SET\" section can only be used once in an update expression;"
                        + " (at char 11)");
    }
}
