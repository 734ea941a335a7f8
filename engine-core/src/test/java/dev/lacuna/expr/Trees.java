package dev.lacuna.expr;

import dev.lacuna.AttributeValue;
import dev.lacuna.expr.Ast.And;
import dev.lacuna.expr.Ast.Comparator;
import dev.lacuna.expr.Ast.Compare;
import dev.lacuna.expr.Ast.Condition;
import dev.lacuna.expr.Ast.Literal;
import dev.lacuna.expr.Ast.NamePlaceholder;
import dev.lacuna.expr.Ast.Not;
import dev.lacuna.expr.Ast.Operand;
import dev.lacuna.expr.Ast.Or;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.ValueRef;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Short builders for expected syntax trees and items in the tests. */
final class Trees {
    private Trees() {
    }

    /** A path: strings are names ({@code "#x"} a name placeholder), integers list indexes. */
    static Path path(Object... elements) {
        Object[] mapped = new Object[elements.length];
        for (int i = 0; i < elements.length; i++) {
            mapped[i] = elements[i] instanceof String s && s.startsWith("#") ? new NamePlaceholder(s) : elements[i];
        }
        return Path.of(mapped);
    }

    static ValueRef v(String placeholder) {
        return new ValueRef(placeholder);
    }

    static Literal lit(AttributeValue value) {
        return new Literal(value);
    }

    static Compare cmp(Operand left, String symbol, Operand right) {
        for (Comparator c : Comparator.values()) {
            if (c.symbol.equals(symbol)) {
                return new Compare(left, c, right);
            }
        }
        throw new IllegalArgumentException(symbol);
    }

    static And and(Condition... operands) {
        return new And(List.of(operands));
    }

    static Or or(Condition... operands) {
        return new Or(List.of(operands));
    }

    static Not not(Condition operand) {
        return new Not(operand);
    }

    /** An item from alternating names and values. */
    static Map<String, AttributeValue> item(Object... namesAndValues) {
        Map<String, AttributeValue> item = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            item.put((String) namesAndValues[i], (AttributeValue) namesAndValues[i + 1]);
        }
        return item;
    }

    /** A map value from alternating names and values. */
    static AttributeValue map(Object... namesAndValues) {
        return AttributeValue.m(item(namesAndValues));
    }
}
