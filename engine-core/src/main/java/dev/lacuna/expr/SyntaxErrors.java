package dev.lacuna.expr;

import java.util.List;

/**
 * Builds syntax-error messages in DynamoDB's form, {@code Syntax error; token: "X", near: "Y"}, where
 * {@code near} is the source text from the token before the offending one to the token after it, and adds
 * where the offending token starts ({@code (at char N)}, a 0-based char offset). The end of input is the
 * token {@code <EOF>}.
 */
final class SyntaxErrors {
    private SyntaxErrors() {
    }

    static String message(String token, String near, int offset) {
        return "Syntax error; token: \"" + token + "\", near: \"" + near + "\" (at char " + offset + ")";
    }

    /** The message for an unexpected token: {@code tokens.get(index)} in {@code source}. */
    static String unexpected(String source, List<Token> tokens, int index) {
        Token bad = tokens.get(index);
        int from = index > 0 ? tokens.get(index - 1).start() : bad.start();
        int to = index + 1 < tokens.size() ? tokens.get(index + 1).end() : bad.end();
        return message(bad.display(), source.substring(from, Math.max(from, to)), bad.start());
    }
}
