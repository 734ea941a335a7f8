package dev.lacuna.expr;

import dev.lacuna.ValidationException;

/** The five kinds of expression, named as DynamoDB names the request parameters in its error messages. */
enum ExpressionKind {
    KEY_CONDITION("KeyConditionExpression"),
    CONDITION("ConditionExpression"),
    FILTER("FilterExpression"),
    PROJECTION("ProjectionExpression"),
    UPDATE("UpdateExpression");

    private final String parameter;

    ExpressionKind(String parameter) {
        this.parameter = parameter;
    }

    /** The request parameter's name, e.g. {@code ConditionExpression}. */
    String parameter() {
        return parameter;
    }

    /** An error in an expression of this kind: {@code Invalid <Parameter>: <detail>}, DynamoDB's form. */
    ValidationException error(String detail) {
        return new ValidationException("Invalid " + parameter + ": " + detail);
    }
}
