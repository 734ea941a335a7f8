package dev.lacuna.expr;

/**
 * The limits every expression is held to. The first three are DynamoDB's published quotas; the nesting
 * bound is Lacuna's, because DynamoDB documents none.
 *
 * <p>Nesting: DynamoDB bounds it only indirectly (at most {@value #MAX_OPERATORS} operators, and redundant
 * parentheses such as {@code ((a = :v))} are rejected, so each level of parentheses costs an operator). Lacuna
 * adds an explicit bound so that parsing and evaluation recurse a known, small number of levels whatever the
 * input: parentheses, {@code NOT} and function arguments may nest at most {@value #MAX_NESTING_DEPTH} levels,
 * the same figure as DynamoDB's limit on nested attributes, which also bounds document paths
 * ({@value #MAX_PATH_DEPTH} elements, e.g. {@code a.b[1]} has three). A deeper expression is a
 * {@link dev.lacuna.ValidationException}, never a {@link StackOverflowError}.
 */
final class ExpressionLimits {
    /** Maximum size of one expression string, in UTF-8 bytes (4 KB). */
    static final int MAX_EXPRESSION_BYTES = 4096;
    /** Maximum number of operators and functions in one expression. */
    static final int MAX_OPERATORS = 300;
    /** Maximum number of operands on the right of {@code IN}. */
    static final int MAX_IN_OPERANDS = 100;
    /** Maximum nesting of parentheses, {@code NOT} and function calls. */
    static final int MAX_NESTING_DEPTH = 32;
    /** Maximum number of elements (names and list indexes) in a document path. */
    static final int MAX_PATH_DEPTH = 32;
    /** Maximum length of an expression attribute name or value placeholder, in UTF-8 bytes. */
    static final int MAX_PLACEHOLDER_BYTES = 255;

    private ExpressionLimits() {
    }
}
