package dev.lacuna.expr;

import static dev.lacuna.AttributeValue.l;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.expr.Trees.item;
import static dev.lacuna.expr.Trees.map;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * REMOVE of a nested path, as DynamoDB does it: the path up to the last step must exist in the item, with a map
 * before a {@code .name} and a list before an {@code [index]}, or the update is refused ("The document path
 * provided in the update expression is invalid for update", as for SET); what the last step names may be
 * absent, a map key that is not there or an index past the list's end, and then nothing is removed.
 */
class RemovePathTest {
    private static final String INVALID_PATH = "The document path provided in the update expression is invalid for update";
    private static final Map<String, AttributeValue> ITEM = item(
            "pk", s("k"), "str", s("hello"), "m", map("x", n(3)), "lst", l(n(1), n(2), n(3)));

    private static UpdateExpression update(String expression) {
        return UpdateExpression.parse(expression, Placeholders.none());
    }

    @ParameterizedTest
    @ValueSource(strings = {"REMOVE str.c", "REMOVE lst.c", "REMOVE absent.c", "REMOVE m.x.y", "REMOVE absent.c.d"})
    void shouldRefuseANameStepBelowSomethingThatIsNotAMap(String expression) {
        assertThatThrownBy(() -> update(expression).apply(ITEM))
                .isInstanceOf(ValidationException.class)
                .hasMessage(INVALID_PATH);
    }

    @ParameterizedTest
    @ValueSource(strings = {"REMOVE str[0]", "REMOVE m[0]", "REMOVE absent[0]", "REMOVE lst[0][0]", "REMOVE lst[9].x"})
    void shouldRefuseAnIndexStepBelowSomethingThatIsNotAList(String expression) {
        assertThatThrownBy(() -> update(expression).apply(ITEM))
                .isInstanceOf(ValidationException.class)
                .hasMessage(INVALID_PATH);
    }

    @ParameterizedTest
    @ValueSource(strings = {"REMOVE m.y", "REMOVE lst[7]", "REMOVE absent"})
    void shouldRemoveNothingWhenOnlyTheLastStepIsMissing(String expression) {
        assertThat(update(expression).apply(ITEM)).isEqualTo(ITEM);
    }

    @Test
    void shouldStillRemoveWhatIsThere() {
        assertThat(update("REMOVE m.x, lst[1]").apply(ITEM))
                .isEqualTo(item("pk", s("k"), "str", s("hello"), "m", map(), "lst", l(n(1), n(3))));
    }

    @Test
    void shouldRefuseTheWholeUpdateWhenOneRemovalIsInvalid() {
        assertThatThrownBy(() -> update("SET n = str REMOVE str.c").apply(ITEM)).hasMessage(INVALID_PATH);
    }

    @Test
    void shouldIgnoreNestedRemovalsOnAnItemThatDoesNotExist() {
        // DynamoDB leaves an absent item alone for REMOVE x.y, where an existing item without x is refused.
        assertThat(update("REMOVE absent.c").apply(Map.of("pk", s("k")), false)).isEqualTo(Map.of("pk", s("k")));
        assertThat(update("REMOVE absent[0]").apply(Map.of("pk", s("k")), false)).isEqualTo(Map.of("pk", s("k")));
        assertThatThrownBy(() -> update("REMOVE absent.c").apply(Map.of("pk", s("k")), true)).hasMessage(INVALID_PATH);
    }
}
