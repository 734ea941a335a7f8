package dev.lacuna.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.expr.Token.Type;
import java.util.List;
import org.junit.jupiter.api.Test;

class LexerTest {

    @Test
    void shouldSplitIntoTokensWithPositions() {
        List<Token> tokens = Lexer.tokenize("#a.b[12] <> :v_1,(\t)\n=<<=>>=+-", ExpressionKind.CONDITION);
        assertThat(tokens).containsExactly(
                new Token(Type.NAME_PLACEHOLDER, "#a", 0, 2),
                new Token(Type.DOT, ".", 2, 3),
                new Token(Type.NAME, "b", 3, 4),
                new Token(Type.LBRACKET, "[", 4, 5),
                new Token(Type.NUMBER, "12", 5, 7),
                new Token(Type.RBRACKET, "]", 7, 8),
                new Token(Type.NE, "<>", 9, 11),
                new Token(Type.VALUE_PLACEHOLDER, ":v_1", 12, 16),
                new Token(Type.COMMA, ",", 16, 17),
                new Token(Type.LPAREN, "(", 17, 18),
                new Token(Type.RPAREN, ")", 19, 20),
                new Token(Type.EQ, "=", 21, 22),
                new Token(Type.LT, "<", 22, 23),
                new Token(Type.LE, "<=", 23, 25),
                new Token(Type.GT, ">", 25, 26),
                new Token(Type.GE, ">=", 26, 28),
                new Token(Type.PLUS, "+", 28, 29),
                new Token(Type.MINUS, "-", 29, 30),
                new Token(Type.EOF, "", 30, 30));
    }

    @Test
    void shouldLeaveKeywordsAsNames() {
        assertThat(Lexer.tokenize("AND x_9 sEt", ExpressionKind.UPDATE)).extracting(Token::type)
                .containsExactly(Type.NAME, Type.NAME, Type.NAME, Type.EOF);
        assertThat(Lexer.tokenize("sEt", ExpressionKind.UPDATE).get(0).isKeyword("SET")).isTrue();
    }

    @Test
    void shouldMakeACharacterThatStartsNoTokenAnUnknownTokenOfItsOwn() {
        assertThat(Lexer.tokenize("_a\uD83D\uDE00#:", ExpressionKind.CONDITION)).containsExactly(
                new Token(Type.UNKNOWN, "_", 0, 1),
                new Token(Type.NAME, "a", 1, 2),
                new Token(Type.UNKNOWN, "\uD83D\uDE00", 2, 4),
                new Token(Type.UNKNOWN, "#", 4, 5),
                new Token(Type.UNKNOWN, ":", 5, 6),
                new Token(Type.EOF, "", 6, 6));
    }

    @Test
    void shouldNameACharacterThatStartsNoTokenInTheSyntaxError() {
        assertThatThrownBy(() -> ConditionParser.parse("a = \uD83D\uDE00", ExpressionKind.CONDITION))
                .hasMessage("Invalid ConditionExpression: Syntax error; token: \"\uD83D\uDE00\", near: \"= \uD83D\uDE00\""
                        + " (at char 4)");
        assertThatThrownBy(() -> ProjectionParser.parse("$"))
                .hasMessage("Invalid ProjectionExpression: Syntax error; token: \"$\", near: \"$\" (at char 0)");
        assertThatThrownBy(() -> ConditionParser.parse("a = \uDC00", ExpressionKind.CONDITION))
                .hasMessageContaining("token: \"\uDC00\"");
    }

    @Test
    void shouldCountUtf8Bytes() {
        assertThat(Lexer.utf8Length("a\u00e9\u20ac\uD83D\uDE00")).isEqualTo(1 + 2 + 3 + 4);
        assertThat(Lexer.utf8Length("\uD800x")).isEqualTo(3 + 1);
    }
}
