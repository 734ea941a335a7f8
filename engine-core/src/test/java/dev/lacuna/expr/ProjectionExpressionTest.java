package dev.lacuna.expr;

import static dev.lacuna.AttributeValue.l;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.expr.Trees.item;
import static dev.lacuna.expr.Trees.map;
import static dev.lacuna.expr.Trees.path;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import dev.lacuna.expr.Ast.Projection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProjectionExpressionTest {
    private static final Map<String, AttributeValue> ITEM = item(
            "pk", s("p1"),
            "title", s("Book"),
            "price", n(12),
            "reviews", map("five", l(s("great"), s("superb")), "one", l(s("bad"))),
            "tags", l(s("a"), s("b"), s("c"), s("d")),
            "matrix", l(l(n(1), n(2)), l(n(3), map("x", n(4), "y", n(5)))));

    private static Map<String, AttributeValue> project(String expression) {
        return ProjectionExpression.parse(expression, Placeholders.none()).project(ITEM);
    }

    @Test
    void shouldParseCommaSeparatedPaths() {
        assertThat(ProjectionParser.parse("a, #b.c[1], d[0][2].e"))
                .isEqualTo(new Projection(List.of(path("a"), path("#b", "c", 1), path("d", 0, 2, "e"))));
    }

    @Test
    void shouldProjectTopLevelAttributesOnly() {
        assertThat(project("title, price")).isEqualTo(item("title", s("Book"), "price", n(12)));
    }

    @Test
    void shouldLeaveOutPathsThatNameNothing() {
        assertThat(project("title, absent, reviews.nope, tags[9], price.x, reviews.five.x")).isEqualTo(item("title", s("Book")));
    }

    @Test
    void shouldKeepTheNestingOfNestedPaths() {
        assertThat(project("reviews.one")).isEqualTo(item("reviews", map("one", l(s("bad")))));
        assertThat(project("reviews.five[1], reviews.one[0]"))
                .isEqualTo(item("reviews", map("five", l(s("superb")), "one", l(s("bad")))));
    }

    @Test
    void shouldKeepOnlyProjectedListElementsInIndexOrder() {
        assertThat(project("tags[3], tags[1]")).isEqualTo(item("tags", l(s("b"), s("d"))));
        assertThat(project("matrix[1][1].y, matrix[0][0]"))
                .isEqualTo(item("matrix", l(l(n(1)), l(map("y", n(5))))));
    }

    @Test
    void shouldResolveNamePlaceholders() {
        Placeholders placeholders = Placeholders.of(Map.of("#r", "reviews", "#t", "title"), Map.of());
        ProjectionExpression projection = ProjectionExpression.parse("#r.one, #t", placeholders);
        placeholders.requireAllUsed();
        assertThat(projection.project(ITEM)).isEqualTo(item("reviews", map("one", l(s("bad"))), "title", s("Book")));
        assertThat(projection.attributeNames()).containsExactly("reviews", "title");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "a, a.b      | Two document paths overlap with each other; must remove or rewrite one of these paths;"
                    + " path one: [a], path two: [a, b]",
            "a.b[1], a.b | overlap with each other",
            "a, a        | overlap with each other",
            "a[1], a.b   | Two document paths conflict with each other; must remove or rewrite one of these paths;"
                    + " path one: [a, [1]], path two: [a, b]",
            "a,          | token: \"<EOF>\"",
            "a b         | token: \"b\"",
            "name        | reserved keyword: name",
            "size(a)     | token: \"(\"",
            ":v          | token: \":v\""})
    void shouldRejectInvalidProjection(String expression, String message) {
        assertThatThrownBy(() -> ProjectionExpression.parse(expression, Placeholders.none()))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("Invalid ProjectionExpression: ")
                .hasMessageContaining(message);
    }

    @Test
    void shouldDetectOverlapThroughPlaceholders() {
        assertThatThrownBy(() -> ProjectionExpression.parse("#x, a.b", Placeholders.of(Map.of("#x", "a"), Map.of())))
                .hasMessageContaining("path one: [a], path two: [a, b]");
    }

    @Test
    void shouldAllowNamesThatLookNestedThroughAPlaceholder() {
        Map<String, AttributeValue> dotted = item("a.b", s("flat"), "a", map("b", s("nested")));
        ProjectionExpression projection = ProjectionExpression.parse("#ab", Placeholders.of(Map.of("#ab", "a.b"), Map.of()));
        assertThat(projection.project(dotted)).isEqualTo(item("a.b", s("flat")));
    }
}
