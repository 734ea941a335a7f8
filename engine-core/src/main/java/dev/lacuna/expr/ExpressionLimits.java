package dev.lacuna.expr;

/**
 * The limits every expression is held to: DynamoDB's published quotas, and its limit on nested attributes for
 * document paths ({@value #MAX_PATH_DEPTH} elements, e.g. {@code a.b[1]} has three).
 *
 * <p>Nesting has no limit of its own, as in DynamoDB: it is bounded only by the size (4 KB hold some 2000
 * parentheses) and by the operator count (redundant parentheses such as {@code ((a = :v))} are rejected, so
 * every level of a valid expression costs an operator). The parsers do not recurse per parenthesis or
 * {@code NOT}, and recurse per function call only after counting it, so a valid tree is at most about
 * {@value #MAX_OPERATORS} levels deep and no input makes parsing or evaluation overflow the stack.
 */
final class ExpressionLimits {
    /** Maximum size of one expression string, in UTF-8 bytes (4 KB). */
    static final int MAX_EXPRESSION_BYTES = 4096;
    /** Maximum number of operators and functions in one expression. */
    static final int MAX_OPERATORS = 300;
    /** Maximum number of operands on the right of {@code IN}. */
    static final int MAX_IN_OPERANDS = 100;
    /** Maximum number of elements (names and list indexes) in a document path. */
    static final int MAX_PATH_DEPTH = 32;
    /** Maximum length of an expression attribute name or value placeholder, in UTF-8 bytes. */
    static final int MAX_PLACEHOLDER_BYTES = 255;

    private ExpressionLimits() {
    }
}
