/**
 * DynamoDB's expression language: key conditions, conditions and filters, projections and updates, with
 * {@code #name} and {@code :value} placeholders. Internal: not exported. The item engine
 * ({@code dev.lacuna.engine}) uses {@link Placeholders}, {@link KeyConditionExpression} with its
 * {@link KeyTerm}s, {@link ConditionExpression}, {@link ProjectionExpression} and {@link UpdateExpression};
 * the rest is package-private. Items are plain attribute maps here: the package must not know keys, encodings
 * or storage, and uses nothing of Lacuna but the value types of {@code dev.lacuna}, {@code ItemSize} and
 * {@code dev.lacuna.base.Utf8}.
 *
 * <p>Each expression goes through three steps: the {@link Lexer} and a hand-written parser build an immutable
 * syntax tree ({@link Ast}); the {@link Binder} resolves its placeholders and makes the checks DynamoDB makes
 * before reading an item; evaluators then test, project or update items. Every error is a
 * {@code ValidationException} worded as DynamoDB words it ({@code Invalid UpdateExpression: Syntax error;
 * token: "…", near: "…"}), with the char offset of the offending token added where there is one.
 *
 * <p>Limits ({@link ExpressionLimits}): DynamoDB's, 4 KB per expression, 300 operators and functions, 100
 * operands of {@code IN} and 32 levels of document paths. Nesting is bounded by those alone, and parsing never
 * recurses per parenthesis or {@code NOT}, so no input overflows the stack.
 */
package dev.lacuna.expr;
