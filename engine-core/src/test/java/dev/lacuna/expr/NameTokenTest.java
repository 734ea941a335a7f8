package dev.lacuna.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.ValidationException;
import org.junit.jupiter.api.Test;

/**
 * An attribute or function name written in an expression (not through {@code #name}) starts with a letter,
 * {@code a-z} or {@code A-Z}, and goes on with letters, digits and underscores; anything else is a syntax error
 * on the offending character, and a name that does not fit has to be given through an expression attribute
 * name. Placeholders ({@code #x}, {@code :x}) may start with any of those characters after the sigil.
 */
class NameTokenTest {

    @Test
    void shouldRefuseAnAttributeNameStartingWithAnUnderscore() {
        assertThatThrownBy(() -> UpdateParser.parse("SET _a = :v"))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("Invalid UpdateExpression: Syntax error; token: \"_\", near: \"SET _a\"");
        assertThatThrownBy(() -> ConditionParser.parse("_a = :v", ExpressionKind.CONDITION))
                .hasMessageStartingWith("Invalid ConditionExpression: Syntax error; token: \"_\", near: \"_a\"");
        assertThatThrownBy(() -> ProjectionParser.parse("a, _b"))
                .hasMessageStartingWith("Invalid ProjectionExpression: Syntax error; token: \"_\", near: \", _b\"");
        assertThatThrownBy(() -> UpdateParser.parse("REMOVE a._b"))
                .hasMessageStartingWith("Invalid UpdateExpression: Syntax error; token: \"_\", near: \"._b\"");
    }

    @Test
    void shouldReportAnUnderscoreFunctionNameAsASyntaxError() {
        assertThatThrownBy(() -> UpdateParser.parse("SET a = _f(b)"))
                .hasMessageStartingWith("Invalid UpdateExpression: Syntax error; token: \"_\", near: \"= _f\"");
        assertThatThrownBy(() -> ConditionParser.parse("_f(a)", ExpressionKind.FILTER))
                .hasMessageStartingWith("Invalid FilterExpression: Syntax error; token: \"_\", near: \"_f\"");
    }

    @Test
    void shouldNameTheCharacterAndTheTokensAroundIt() {
        assertThatThrownBy(() -> UpdateParser.parse("SET _123 = :v"))
                .hasMessageStartingWith("Invalid UpdateExpression: Syntax error; token: \"_\", near: \"SET _123\"");
        assertThatThrownBy(() -> UpdateParser.parse("SET a-b = :v"))
                .hasMessageStartingWith("Invalid UpdateExpression: Syntax error; token: \"-\", near: \"a-b\"");
        assertThatThrownBy(() -> ConditionParser.parse("a = :v AND $b = :w", ExpressionKind.CONDITION))
                .hasMessageStartingWith("Invalid ConditionExpression: Syntax error; token: \"$\", near: \"AND $b\"");
    }

    @Test
    void shouldAcceptLettersDigitsAndUnderscoresAfterTheFirstLetter() {
        assertThat(ProjectionParser.parse("a_1, B2_, x__y").paths()).hasSize(3);
        assertThat(UpdateParser.parse("SET #_x = :_1, #1 = :2").set()).hasSize(2);
    }
}
