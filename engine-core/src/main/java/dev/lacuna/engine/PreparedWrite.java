package dev.lacuna.engine;

import dev.lacuna.AttributeValue;
import dev.lacuna.ConditionCheck;
import dev.lacuna.DeleteItem;
import dev.lacuna.ExpressionRequest;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.PutItem;
import dev.lacuna.ReturnValues;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import dev.lacuna.WriteOp;
import dev.lacuna.expr.ConditionExpression;
import dev.lacuna.expr.ParseCache;
import dev.lacuna.expr.Placeholders;
import dev.lacuna.expr.UpdateExpression;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A write checked completely against its table — key schema, types, sizes, expressions and placeholders —
 * before any lock is taken or anything logged; {@link #apply} then computes what it does to the item as
 * it stands.
 */
final class PreparedWrite {
    /** What a write does to one item: the item after it (null: absent), or a failed condition. */
    record Outcome(boolean conditionFailed, Item after) {
    }

    final TableSchema table;
    final WriteOp op;
    final Key key;
    final byte[] encodedKey;
    private final ConditionExpression condition;
    private final UpdateExpression update;

    private PreparedWrite(TableSchema table, WriteOp op, Key key, ConditionExpression condition,
                          UpdateExpression update) {
        this.table = table;
        this.op = op;
        this.key = key;
        this.encodedKey = table.encode(key);
        this.condition = condition;
        this.update = update;
    }

    /**
     * Checks {@code op} against {@code table}.
     *
     * @param returnValues what the caller wants back (checked against what the operation allows), or null
     * @param parses       the database's parsed expressions
     * @throws ValidationException if anything about it is invalid
     */
    static PreparedWrite prepare(TableSchema table, WriteOp op, ReturnValues returnValues, ParseCache parses) {
        Placeholders placeholders = placeholders(op);
        Key key;
        UpdateExpression update = null;
        if (op instanceof PutItem put) {
            key = table.keyOf(put.item());
            table.checkWritable(put.item());
            allow(returnValues, "PutItem", ReturnValues.NONE, ReturnValues.ALL_OLD);
        } else if (op instanceof UpdateItem u) {
            key = table.check(u.key());
            if (u.update() != null) {
                update = UpdateExpression.parse(u.update(), placeholders, parses);
                for (String attribute : update.touchedAttributes()) {
                    if (table.isKeyAttribute(attribute)) {
                        throw new ValidationException("One or more parameter values were invalid: Cannot update "
                                + "attribute " + attribute + ". This attribute is part of the key");
                    }
                }
            }
        } else if (op instanceof DeleteItem d) {
            key = table.check(d.key());
            allow(returnValues, "DeleteItem", ReturnValues.NONE, ReturnValues.ALL_OLD);
        } else {
            key = table.check(((ConditionCheck) op).key());
        }
        ConditionExpression condition = op.condition() == null ? null
                : ConditionExpression.parseCondition(op.condition(), placeholders, parses);
        placeholders.requireAllUsed();
        return new PreparedWrite(table, op, key, condition, update);
    }

    private static Placeholders placeholders(WriteOp op) {
        ExpressionRequest<?> r = (ExpressionRequest<?>) op;
        return Placeholders.of(r.names(), r.values());
    }

    private static void allow(ReturnValues asked, String operation, ReturnValues... allowed) {
        if (asked == null) {
            return;
        }
        for (ReturnValues r : allowed) {
            if (r == asked) {
                return;
            }
        }
        throw new ValidationException("ReturnValues can only be NONE or ALL_OLD for " + operation + ": " + asked);
    }

    /**
     * What the write does to {@code current} (null: no such item).
     *
     * @throws ValidationException if the update cannot apply to this item, or makes it invalid
     */
    Outcome apply(Item current) {
        Map<String, AttributeValue> before = current == null ? Map.of() : current.attributes();
        if (condition != null && !condition.test(before)) {
            return new Outcome(true, current);
        }
        if (op instanceof PutItem put) {
            return new Outcome(false, put.item());
        }
        if (op instanceof DeleteItem) {
            return new Outcome(false, null);
        }
        if (op instanceof ConditionCheck) {
            return new Outcome(false, current);
        }
        Map<String, AttributeValue> start = new LinkedHashMap<>(key.attributes());
        start.putAll(before);
        Map<String, AttributeValue> updated = update == null ? start : update.apply(start, current != null);
        if (current == null && update != null && updated.size() == key.attributes().size()) {
            // An update that adds nothing (only REMOVE or DELETE) does not create an absent item.
            return new Outcome(false, null);
        }
        Item after = Item.of(updated);
        table.checkWritable(after);
        return new Outcome(false, after);
    }

    /** Whether the write changes stored data (a condition check does not). */
    boolean writes() {
        return !(op instanceof ConditionCheck);
    }

    /** What {@code returnValues} asks for, given the item before and after. */
    Item returned(ReturnValues returnValues, Item before, Item after) {
        return switch (returnValues) {
            case NONE -> null;
            case ALL_OLD -> before;
            case ALL_NEW -> after;
            case UPDATED_OLD -> updated(before);
            case UPDATED_NEW -> updated(after);
        };
    }

    private Item updated(Item item) {
        if (item == null || update == null) {
            return null;
        }
        Map<String, AttributeValue> out = update.projectUpdated(item.attributes());
        return out.isEmpty() ? null : Item.of(out);
    }
}
