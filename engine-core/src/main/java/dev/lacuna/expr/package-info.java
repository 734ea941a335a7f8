/**
 * DynamoDB's expression language: key conditions, conditions and filters, projections and updates, with
 * {@code #name} and {@code :value} placeholders. Internal: not exported. The item engine
 * ({@code dev.lacuna.engine}) uses {@link Placeholders}, {@link KeyConditionExpression} with its
 * {@link KeyTerm}s, {@link ConditionExpression}, {@link ProjectionExpression} and {@link UpdateExpression};
 * the rest is package-private. Items are plain attribute maps here: the package must not know keys, encodings
 * or storage, and uses nothing of Lacuna but the value types of {@code dev.lacuna} and {@code ItemSize}.
 *
 * <p>Each expression goes through three steps: the {@link Lexer} and a hand-written recursive-descent parser
 * build an immutable syntax tree ({@link Ast}); the {@link Binder} resolves its placeholders and makes the
 * checks DynamoDB makes before reading an item; evaluators then test, project or update items. Every error is
 * a {@code ValidationException} worded as DynamoDB words it ({@code Invalid UpdateExpression: Syntax error;
 * token: "…", near: "…"}), with the char offset of the offending token added where there is one. Limits
 * ({@link ExpressionLimits}): 4 KB per expression, 300 operators and functions, 100 operands of {@code IN},
 * and, Lacuna's own choice, 32 levels of nesting and of document paths.
 */
package dev.lacuna.expr;
