package dev.lacuna.expr;

/**
 * One token of an expression, with its place in the source: {@code start} (inclusive) and {@code end}
 * (exclusive) are char offsets into the expression string.
 */
record Token(Type type, String text, int start, int end) {
    /** What a token is. Keywords ({@code AND}, {@code SET}, …) are {@link #NAME}s; the parser tells them apart. */
    enum Type {
        /** An attribute name, keyword or function name: {@code [A-Za-z][A-Za-z0-9_]*}. */
        NAME,
        /** {@code #name}: an expression attribute name. */
        NAME_PLACEHOLDER,
        /** {@code :value}: an expression attribute value. */
        VALUE_PLACEHOLDER,
        /** Decimal digits; only meaningful as a list index. */
        NUMBER,
        LPAREN, RPAREN, LBRACKET, RBRACKET, DOT, COMMA,
        EQ, NE, LT, LE, GT, GE, PLUS, MINUS,
        /** One character that starts no other token; always a syntax error where the parser meets it. */
        UNKNOWN,
        /** The end of the expression. */
        EOF
    }

    /** Whether this is the keyword {@code keyword} (keywords ignore case, as in DynamoDB). */
    boolean isKeyword(String keyword) {
        return type == Type.NAME && text.equalsIgnoreCase(keyword);
    }

    /** How an error message names this token: its text, or {@code <EOF>}. */
    String display() {
        return type == Type.EOF ? "<EOF>" : text;
    }
}
