/**
 * DynamoDB's expression language: key conditions, conditions and filters, projections and updates, with
 * {@code #name} and {@code :value} placeholders. Internal to Lacuna; the table layer uses
 * {@link dev.lacuna.expr.Placeholders}, {@link dev.lacuna.expr.KeyConditionExpression},
 * {@link dev.lacuna.expr.ConditionExpression}, {@link dev.lacuna.expr.ProjectionExpression} and
 * {@link dev.lacuna.expr.UpdateExpression}, and works on items as plain attribute maps.
 *
 * <p>Each expression goes through three steps: a hand-written lexer and recursive-descent parser build an
 * immutable syntax tree ({@code Ast}); a binder resolves its placeholders against the request's
 * {@link dev.lacuna.expr.Placeholders} and makes the checks DynamoDB makes before reading an item; evaluators
 * then test, project or update items. Every error is a {@link dev.lacuna.ValidationException} worded as
 * DynamoDB words it ({@code Invalid UpdateExpression: Syntax error; token: "…", near: "…"}), with the char
 * offset of the offending token added where there is one.
 *
 * <p>Limits (see {@code ExpressionLimits}): DynamoDB's, 4 KB per expression, 300 operators and functions, 100
 * operands of {@code IN} and 32 levels of document paths. Nesting is bounded by those alone, and parsing never
 * recurses per parenthesis or {@code NOT}, so no input overflows the stack.
 */
package dev.lacuna.expr;
