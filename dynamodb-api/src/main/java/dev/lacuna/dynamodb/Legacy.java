package dev.lacuna.dynamodb;

import dev.lacuna.ExpressionRequest;
import dev.lacuna.WriteRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeAction;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.AttributeValueUpdate;
import software.amazon.awssdk.services.dynamodb.model.ComparisonOperator;
import software.amazon.awssdk.services.dynamodb.model.Condition;
import software.amazon.awssdk.services.dynamodb.model.ConditionalOperator;
import software.amazon.awssdk.services.dynamodb.model.ExpectedAttributeValue;

/**
 * DynamoDB's legacy parameters, which older clients still send, rewritten into the expressions Lacuna evaluates:
 * {@code AttributesToGet} into a projection, {@code Expected} into a condition, {@code AttributeUpdates} into an
 * update expression, {@code KeyConditions}, {@code QueryFilter} and {@code ScanFilter} into key conditions and
 * filters. Each attribute and value gets a placeholder of its own ({@code #lgp0}, {@code :lgf1}, ...), so names
 * that are reserved words need no care. As in DynamoDB, a request may not mix a legacy parameter with the
 * expression that replaces it, nor give expression placeholders along with legacy parameters.
 */
final class Legacy {
    private Legacy() {
    }

    /** The projection expression, or one made of {@code attributesToGet} (null if neither is given). */
    static String projection(String expression, List<String> attributesToGet, ExpressionRequest<?> request) {
        if (attributesToGet == null) {
            return expression;
        }
        mixed(expression, "AttributesToGet", "ProjectionExpression");
        if (attributesToGet.isEmpty()) {
            throw Errors.constraint(attributesToGet, "attributesToGet", "Member must have length greater than or equal to 1");
        }
        List<String> paths = new ArrayList<>();
        for (String attribute : attributesToGet) {
            paths.add(name(request, "#lgp", paths.size(), attribute));
        }
        return String.join(", ", paths);
    }

    /** Adds the condition {@code Expected} stands for to {@code write}. */
    static void expected(WriteRequest<?> write, Map<String, ExpectedAttributeValue> expected, String operator) {
        if (expected == null || expected.isEmpty()) {
            return;
        }
        mixed(write.condition(), "Expected", "ConditionExpression");
        List<String> terms = new ArrayList<>();
        int[] n = {0};
        for (Map.Entry<String, ExpectedAttributeValue> e : expected.entrySet()) {
            ExpectedAttributeValue v = e.getValue();
            String path = name(write, "#lge", terms.size(), e.getKey());
            if (v.comparisonOperatorAsString() != null) {
                if (v.value() != null) {
                    throw Errors.validation("One or more parameter values were invalid: Value and AttributeValueList"
                            + " cannot be used together for Attribute: " + e.getKey());
                }
                terms.add(comparison(write, path, v.comparisonOperatorAsString(),
                        v.hasAttributeValueList() ? v.attributeValueList() : List.of(), ":lge", n, e.getKey()));
            } else if (Boolean.FALSE.equals(v.exists())) {
                if (v.value() != null) {
                    throw Errors.validation("One or more parameter values were invalid: Value cannot be used when"
                            + " Exists is false for Attribute: " + e.getKey());
                }
                terms.add("attribute_not_exists(" + path + ")");
            } else {
                if (v.value() == null) {
                    throw Errors.validation("One or more parameter values were invalid: Value must be provided when"
                            + " Exists is true for Attribute: " + e.getKey());
                }
                terms.add(path + " = " + value(write, ":lge", n, v.value()));
            }
        }
        write.condition(join(terms, operator));
    }

    /** The update expression, or one made of {@code AttributeUpdates} (null if neither is given). */
    static String updates(String expression, Map<String, AttributeValueUpdate> updates, ExpressionRequest<?> request) {
        if (updates == null || updates.isEmpty()) {
            return expression;
        }
        mixed(expression, "AttributeUpdates", "UpdateExpression");
        List<String> set = new ArrayList<>();
        List<String> remove = new ArrayList<>();
        List<String> add = new ArrayList<>();
        List<String> delete = new ArrayList<>();
        int[] n = {0};
        int i = 0;
        for (Map.Entry<String, AttributeValueUpdate> e : updates.entrySet()) {
            AttributeValueUpdate u = e.getValue();
            String path = name(request, "#lgu", i++, e.getKey());
            AttributeAction action = Errors.enumValue(u.actionAsString(), "attributeUpdates.action",
                    AttributeAction.class);
            if (action == null || action == AttributeAction.PUT) {
                if (u.value() == null) {
                    throw Errors.validation("One or more parameter values were invalid: Only DELETE action is allowed"
                            + " when no attribute value is specified");
                }
                set.add(path + " = " + value(request, ":lgu", n, u.value()));
            } else if (action == AttributeAction.DELETE) {
                if (u.value() == null) {
                    remove.add(path);
                } else {
                    delete.add(path + " " + value(request, ":lgu", n, u.value()));
                }
            } else {
                if (u.value() == null) {
                    throw Errors.validation("One or more parameter values were invalid: Only DELETE action is allowed"
                            + " when no attribute value is specified");
                }
                add.add(path + " " + value(request, ":lgu", n, u.value()));
            }
        }
        StringBuilder sb = new StringBuilder();
        clause(sb, "SET", set);
        clause(sb, "REMOVE", remove);
        clause(sb, "ADD", add);
        clause(sb, "DELETE", delete);
        return sb.toString();
    }

    /**
     * A key condition or filter expression made of {@code conditions} ({@code KeyConditions}, {@code QueryFilter},
     * {@code ScanFilter}), joined by {@code operator} (AND if null); null if there are none.
     */
    static String conditions(String expression, Map<String, Condition> conditions, String operator,
                             ExpressionRequest<?> request, String legacyName, String expressionName, String prefix) {
        if (conditions == null || conditions.isEmpty()) {
            return expression;
        }
        mixed(expression, legacyName, expressionName);
        List<String> terms = new ArrayList<>();
        int[] n = {0};
        for (Map.Entry<String, Condition> e : conditions.entrySet()) {
            Condition c = e.getValue();
            String path = name(request, "#" + prefix, terms.size(), e.getKey());
            terms.add(comparison(request, path, Errors.required(c.comparisonOperatorAsString(),
                    legacyName + ".comparisonOperator"), c.hasAttributeValueList() ? c.attributeValueList() : List.of(),
                    ":" + prefix, n, e.getKey()));
        }
        return join(terms, operator);
    }

    private static String comparison(ExpressionRequest<?> request, String path, String rawOperator,
                                     List<AttributeValue> args, String prefix, int[] n, String attribute) {
        ComparisonOperator op = Errors.enumValue(rawOperator, "comparisonOperator", ComparisonOperator.class);
        int expected = switch (op) {
            case NOT_NULL, NULL -> 0;
            case BETWEEN -> 2;
            case IN -> -1;
            default -> 1;
        };
        if (expected >= 0 ? args.size() != expected : args.isEmpty()) {
            throw Errors.validation("One or more parameter values were invalid: Invalid number of argument(s) for the "
                    + op + " ComparisonOperator");
        }
        List<String> v = new ArrayList<>();
        for (AttributeValue a : args) {
            v.add(value(request, prefix, n, a));
        }
        return switch (op) {
            case EQ -> path + " = " + v.get(0);
            case NE -> path + " <> " + v.get(0);
            case LE -> path + " <= " + v.get(0);
            case LT -> path + " < " + v.get(0);
            case GE -> path + " >= " + v.get(0);
            case GT -> path + " > " + v.get(0);
            case NOT_NULL -> "attribute_exists(" + path + ")";
            case NULL -> "attribute_not_exists(" + path + ")";
            case CONTAINS -> "contains(" + path + ", " + v.get(0) + ")";
            case NOT_CONTAINS -> "NOT contains(" + path + ", " + v.get(0) + ")";
            case BEGINS_WITH -> "begins_with(" + path + ", " + v.get(0) + ")";
            case IN -> path + " IN (" + String.join(", ", v) + ")";
            case BETWEEN -> path + " BETWEEN " + v.get(0) + " AND " + v.get(1);
            default -> throw Errors.validation("Unsupported ComparisonOperator for attribute " + attribute + ": " + op);
        };
    }

    private static String join(List<String> terms, String operator) {
        ConditionalOperator op = Errors.enumValue(operator, "conditionalOperator", ConditionalOperator.class);
        return terms.size() == 1 ? terms.get(0)
                : "(" + String.join(") " + (op == ConditionalOperator.OR ? "OR" : "AND") + " (", terms) + ")";
    }

    private static void clause(StringBuilder sb, String keyword, List<String> parts) {
        if (!parts.isEmpty()) {
            sb.append(sb.length() == 0 ? "" : " ").append(keyword).append(' ').append(String.join(", ", parts));
        }
    }

    private static String name(ExpressionRequest<?> request, String prefix, int i, String attribute) {
        String placeholder = prefix + i;
        request.name(placeholder, attribute);
        return placeholder;
    }

    private static String value(ExpressionRequest<?> request, String prefix, int[] n, AttributeValue v) {
        String placeholder = prefix + n[0]++;
        request.value(placeholder, Values.lacuna(v));
        return placeholder;
    }

    private static void mixed(String expression, String legacy, String modern) {
        if (expression != null) {
            throw Errors.validation("Can not use both expression and non-expression parameters in the same request:"
                    + " Non-expression parameters: {" + legacy + "} Expression parameters: {" + modern + "}");
        }
    }
}
