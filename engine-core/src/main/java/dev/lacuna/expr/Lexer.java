package dev.lacuna.expr;

import dev.lacuna.base.Utf8;
import dev.lacuna.expr.Token.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits an expression into {@link Token}s. Checks first that the expression is not empty and not over
 * {@link ExpressionLimits#MAX_EXPRESSION_BYTES}. Whitespace separates tokens and is otherwise ignored.
 *
 * <p>A character that starts no token (an underscore or digit before a name, {@code $}, a quote, a lone
 * {@code #} or {@code :}) becomes an {@link Type#UNKNOWN} token of its own, which no grammar rule accepts: the
 * parser then reports it as DynamoDB does, {@code Syntax error; token: "_", near: "SET _a"}, naming the
 * tokens on either side of it (so the lexer itself never fails).
 */
final class Lexer {
    private final String source;
    private final List<Token> tokens = new ArrayList<>();
    private int pos;

    private Lexer(String source) {
        this.source = source;
    }

    /** The tokens of {@code source}, ending with one {@link Type#EOF}. */
    static List<Token> tokenize(String source, ExpressionKind kind) {
        int bytes = utf8Length(source);
        if (bytes > ExpressionLimits.MAX_EXPRESSION_BYTES) {
            // DynamoDB gives the size (in UTF-8 bytes here) for conditions, filters and key conditions only.
            boolean condition = kind != ExpressionKind.UPDATE && kind != ExpressionKind.PROJECTION;
            throw kind.error("Expression size has exceeded the maximum allowed size;"
                    + (condition ? " expression size: " + bytes : ""));
        }
        if (source.isBlank()) {
            throw kind.error("The expression can not be empty;");
        }
        Lexer lexer = new Lexer(source);
        lexer.run();
        return lexer.tokens;
    }

    /** The UTF-8 length of {@code s}, counted without encoding it. */
    static int utf8Length(String s) {
        return (int) Math.min(Integer.MAX_VALUE, Utf8.length(s));
    }

    private void run() {
        while (true) {
            while (pos < source.length() && Character.isWhitespace(source.charAt(pos))) {
                pos++;
            }
            if (pos >= source.length()) {
                tokens.add(new Token(Type.EOF, "", source.length(), source.length()));
                return;
            }
            int start = pos;
            char c = source.charAt(pos);
            if (isNameStart(c)) {
                pos++;
                skipNameChars();
                add(Type.NAME, start);
            } else if (c >= '0' && c <= '9') {
                while (pos < source.length() && isDigit(source.charAt(pos))) {
                    pos++;
                }
                add(Type.NUMBER, start);
            } else if ((c == '#' || c == ':') && pos + 1 < source.length() && isNameChar(source.charAt(pos + 1))) {
                pos++;
                skipNameChars();
                add(c == '#' ? Type.NAME_PLACEHOLDER : Type.VALUE_PLACEHOLDER, start);
            } else {
                punctuation(c, start);
            }
        }
    }

    private void punctuation(char c, int start) {
        Type type;
        int length = 1;
        char next = pos + 1 < source.length() ? source.charAt(pos + 1) : 0;
        switch (c) {
            case '(' -> type = Type.LPAREN;
            case ')' -> type = Type.RPAREN;
            case '[' -> type = Type.LBRACKET;
            case ']' -> type = Type.RBRACKET;
            case '.' -> type = Type.DOT;
            case ',' -> type = Type.COMMA;
            case '=' -> type = Type.EQ;
            case '+' -> type = Type.PLUS;
            case '-' -> type = Type.MINUS;
            case '<' -> {
                if (next == '>') {
                    type = Type.NE;
                    length = 2;
                } else if (next == '=') {
                    type = Type.LE;
                    length = 2;
                } else {
                    type = Type.LT;
                }
            }
            case '>' -> {
                if (next == '=') {
                    type = Type.GE;
                    length = 2;
                } else {
                    type = Type.GT;
                }
            }
            default -> {
                type = Type.UNKNOWN;
                length = Character.charCount(source.codePointAt(start));
            }
        }
        pos += length;
        add(type, start);
    }

    private void skipNameChars() {
        while (pos < source.length() && isNameChar(source.charAt(pos))) {
            pos++;
        }
    }

    private void add(Type type, int start) {
        tokens.add(new Token(type, source.substring(start, pos), start, pos));
    }

    /** Whether {@code c} may start an unquoted name: a letter (DynamoDB's names start with one, not {@code _}). */
    static boolean isNameStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    /** Whether {@code c} may follow the first character of a name, or the sigil of a placeholder. */
    static boolean isNameChar(char c) {
        return isNameStart(c) || isDigit(c) || c == '_';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
