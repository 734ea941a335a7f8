package dev.lacuna.expr;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import dev.lacuna.expr.Ast.AddAction;
import dev.lacuna.expr.Ast.Arithmetic;
import dev.lacuna.expr.Ast.DeleteAction;
import dev.lacuna.expr.Ast.IfNotExists;
import dev.lacuna.expr.Ast.Index;
import dev.lacuna.expr.Ast.ListAppend;
import dev.lacuna.expr.Ast.Literal;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.PathElement;
import dev.lacuna.expr.Ast.SetAction;
import dev.lacuna.expr.Ast.SetValue;
import dev.lacuna.expr.Ast.Update;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Applies a bound update expression to an item, as DynamoDB does.
 *
 * <p>Every path and every value read refers to the item as it was before the update: all SET values are
 * computed first, from the old item; then the SETs are written (those appending past a list's end in index
 * order, as DynamoDB sorts them), then ADD, then DELETE, and last every removal (REMOVE, and sets emptied by
 * DELETE) in descending index order, so that {@code REMOVE l[1], l[2]} removes the old second and third
 * elements. Paths never overlap (the binder rejects that), so the order is otherwise immaterial.
 *
 * <p>Errors, as DynamoDB words them: a SET reading a missing attribute ("The provided expression refers to an
 * attribute that does not exist in the item"); an operand of the wrong type for {@code +}, {@code -},
 * {@code list_append}, ADD or DELETE ("An operand in the update expression has an incorrect data type"); a
 * SET, ADD or REMOVE below a missing or mistyped parent ("The document path provided in the update expression
 * is invalid for update"): REMOVE {@code a.b} needs {@code a} to be a map and REMOVE {@code a[1]} needs it to be a
 * list, though {@code b} or element 1 may be absent. REMOVE of an absent attribute, and DELETE of something
 * absent, do nothing; so does any REMOVE on an item that does not exist.
 */
final class UpdateApplier {
    private static final String INCORRECT_TYPE = "An operand in the update expression has an incorrect data type";

    private UpdateApplier() {
    }

    /** A path to remove, and whether a missing or mistyped step before its last is an error. */
    private record Removal(Path path, boolean strict) {
    }

    /**
     * The item after {@code update}; {@code item} itself is not changed.
     *
     * @param exists whether the item exists: on one that does not, DynamoDB ignores a REMOVE whose parent is
     *               missing instead of refusing it
     */
    static Map<String, AttributeValue> apply(Update update, Map<String, AttributeValue> item, boolean exists) {
        Map<String, AttributeValue> result = new LinkedHashMap<>(item);
        List<SetAction> sets = new ArrayList<>(update.set());
        sets.sort(Comparator.comparing(SetAction::path, UpdateApplier::ascending));
        List<AttributeValue> values = new ArrayList<>(sets.size());
        for (SetAction action : sets) {
            values.add(evaluate(action.value(), item));
        }
        for (int i = 0; i < sets.size(); i++) {
            AttributeValue value = values.get(i);
            PathOps.modify(result, sets.get(i).path(), old -> value, true);
        }
        for (AddAction action : update.add()) {
            AttributeValue operand = ((Literal) action.value()).value();
            PathOps.modify(result, action.path(), old -> add(old, operand), true);
        }
        List<Removal> removals = new ArrayList<>();
        for (Path path : update.remove()) {
            removals.add(new Removal(path, exists));
        }
        for (DeleteAction action : update.delete()) {
            AttributeValue operand = ((Literal) action.value()).value();
            PathOps.modify(result, action.path(), old -> {
                AttributeValue left = old == null ? null : delete(old, operand);
                if (old != null && left == null) {
                    removals.add(new Removal(action.path(), false));
                    return old;
                }
                return left;
            }, false);
        }
        // Descending index order, so that removing l[2] does not shift the l[1] removed next.
        removals.sort((a, b) -> ascending(b.path(), a.path()));
        for (Removal removal : removals) {
            PathOps.modify(result, removal.path(), old -> null, removal.strict());
        }
        return result;
    }

    /** The top-level attributes {@code update} writes or removes, in the order first named. */
    static Set<String> touched(Update update) {
        Set<String> names = new LinkedHashSet<>();
        update.set().forEach(a -> names.add(a.path().topLevelName()));
        update.remove().forEach(p -> names.add(p.topLevelName()));
        update.add().forEach(a -> names.add(a.path().topLevelName()));
        update.delete().forEach(a -> names.add(a.path().topLevelName()));
        return names;
    }

    private static AttributeValue evaluate(SetValue value, Map<String, AttributeValue> item) {
        if (value instanceof Literal literal) {
            return literal.value();
        }
        if (value instanceof Path path) {
            AttributeValue found = Values.get(item, path);
            if (found == null) {
                throw new ValidationException("The provided expression refers to an attribute that does not exist in the item");
            }
            return found;
        }
        if (value instanceof IfNotExists ifNotExists) {
            AttributeValue found = Values.get(item, ifNotExists.path());
            return found != null ? found : evaluate(ifNotExists.fallback(), item);
        }
        if (value instanceof ListAppend append) {
            AttributeValue first = evaluate(append.first(), item);
            AttributeValue second = evaluate(append.second(), item);
            if (!(first instanceof AttributeValue.L a) || !(second instanceof AttributeValue.L b)) {
                throw new ValidationException(INCORRECT_TYPE);
            }
            List<AttributeValue> joined = new ArrayList<>(a.values());
            joined.addAll(b.values());
            return new AttributeValue.L(joined);
        }
        Arithmetic arithmetic = (Arithmetic) value;
        AttributeValue left = evaluate(arithmetic.left(), item);
        AttributeValue right = evaluate(arithmetic.right(), item);
        if (!(left instanceof AttributeValue.N a) || !(right instanceof AttributeValue.N b)) {
            throw new ValidationException(INCORRECT_TYPE);
        }
        BigDecimal sum = arithmetic.plus() ? a.value().add(b.value()) : a.value().subtract(b.value());
        return number(sum);
    }

    /** ADD: a number adds (a missing one counts as 0), a set unites with one of its own type (a missing one is empty). */
    private static AttributeValue add(AttributeValue old, AttributeValue operand) {
        if (old == null) {
            return operand;
        }
        if (old instanceof AttributeValue.N a && operand instanceof AttributeValue.N b) {
            return number(a.value().add(b.value()));
        }
        if (old instanceof AttributeValue.SS a && operand instanceof AttributeValue.SS b) {
            Set<String> union = new LinkedHashSet<>(a.values());
            union.addAll(b.values());
            return new AttributeValue.SS(union);
        }
        if (old instanceof AttributeValue.NS a && operand instanceof AttributeValue.NS b) {
            Set<BigDecimal> union = new LinkedHashSet<>(a.values());
            union.addAll(b.values());
            return new AttributeValue.NS(union);
        }
        if (old instanceof AttributeValue.BS a && operand instanceof AttributeValue.BS b) {
            Set<ByteBuffer> union = new LinkedHashSet<>(a.values());
            union.addAll(b.values());
            return new AttributeValue.BS(union);
        }
        throw new ValidationException(INCORRECT_TYPE);
    }

    /** DELETE: the set without the operand's elements, or null if nothing is left. */
    private static AttributeValue delete(AttributeValue old, AttributeValue operand) {
        if (old instanceof AttributeValue.SS a && operand instanceof AttributeValue.SS b) {
            Set<String> left = new LinkedHashSet<>(a.values());
            left.removeAll(b.values());
            return left.isEmpty() ? null : new AttributeValue.SS(left);
        }
        if (old instanceof AttributeValue.NS a && operand instanceof AttributeValue.NS b) {
            Set<BigDecimal> left = new LinkedHashSet<>(a.values());
            left.removeAll(b.values());
            return left.isEmpty() ? null : new AttributeValue.NS(left);
        }
        if (old instanceof AttributeValue.BS a && operand instanceof AttributeValue.BS b) {
            Set<ByteBuffer> left = new LinkedHashSet<>(a.values());
            left.removeAll(b.values());
            return left.isEmpty() ? null : new AttributeValue.BS(left);
        }
        throw new ValidationException(INCORRECT_TYPE);
    }

    /**
     * A computed number, held to DynamoDB's 38 digits and range like any other, with the same messages ("Number
     * overflow. …"), as DynamoDB gives them for the result of {@code +}, {@code -} and ADD.
     */
    private static AttributeValue number(BigDecimal value) {
        return new AttributeValue.N(value);
    }

    /** Orders paths step by step: names alphabetically, indexes ascending; a prefix first. */
    private static int ascending(Path a, Path b) {
        List<PathElement> x = a.elements();
        List<PathElement> y = b.elements();
        for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
            PathElement p = x.get(i);
            PathElement q = y.get(i);
            int c;
            if (p instanceof Index i1 && q instanceof Index i2) {
                c = Integer.compare(i1.index(), i2.index());
            } else if (p instanceof Index || q instanceof Index) {
                c = p instanceof Index ? 1 : -1;
            } else {
                c = p.toString().compareTo(q.toString());
            }
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.size(), y.size());
    }
}
