package dev.lacuna.expr;

import dev.lacuna.AttributeValue;
import dev.lacuna.expr.Ast.Update;
import java.util.Collections;
import java.util.Map;
import java.util.Set;

/**
 * A parsed and bound update expression: {@code SET}, {@code REMOVE}, {@code ADD} and {@code DELETE} clauses,
 * each at most once, in any order. Immutable and thread-safe. See {@link #apply} for the semantics.
 */
public final class UpdateExpression {
    private final String text;
    private final Update update;
    private final Set<String> touched;

    private UpdateExpression(String text, Update update) {
        this.text = text;
        this.update = update;
        this.touched = Collections.unmodifiableSet(UpdateApplier.touched(update));
    }

    /**
     * Parses an {@code UpdateExpression}, resolving its placeholders in {@code placeholders} (and marking them
     * used).
     *
     * @throws dev.lacuna.ValidationException if it is malformed or over a limit, repeats a clause, uses a
     *                                        reserved word or an undefined placeholder, names two overlapping or
     *                                        conflicting paths (e.g. both SETs and REMOVEs {@code a}, or
     *                                        {@code a} and {@code a.b}), or gives ADD, DELETE, {@code +},
     *                                        {@code -} or {@code list_append} a value of a type they never accept
     */
    public static UpdateExpression parse(String expression, Placeholders placeholders) {
        Update parsed = UpdateParser.parse(expression);
        return new UpdateExpression(expression, new Binder(placeholders, ExpressionKind.UPDATE).update(parsed));
    }

    /** As {@link #parse(String, Placeholders)}, taking the parse from {@code cache} when it has it. */
    public static UpdateExpression parse(String expression, Placeholders placeholders, ParseCache cache) {
        Update parsed = cache.update(expression);
        return new UpdateExpression(expression, new Binder(placeholders, ExpressionKind.UPDATE).update(parsed));
    }

    /**
     * The item after the update, as a new map ({@code item} is not changed). Pass an empty map to create an
     * item, as updateItem does when none exists.
     *
     * <p>All values are read from {@code item} as it was before the update. SET assigns (past a list's end it
     * appends), with {@code +}/{@code -} on numbers (exact, at most 38 digits), {@code if_not_exists} and
     * {@code list_append}; REMOVE deletes attributes, map entries and list elements (later elements shift
     * down; indexes refer to the list before the update; the path up to its last step must exist, with a map
     * before a name and a list before an index, while the last step may name nothing); ADD adds to a number (a missing one counts as 0) or
     * unites sets (a missing one is created); DELETE subtracts from a set, removing the attribute if it empties.
     *
     * @throws dev.lacuna.ValidationException as DynamoDB: "An operand in the update expression has an incorrect
     *                                        data type", "The provided expression refers to an attribute that does
     *                                        not exist in the item", "The document path provided in the update
     *                                        expression is invalid for update", or a result that is not a valid
     *                                        number
     */
    public Map<String, AttributeValue> apply(Map<String, AttributeValue> item) {
        return apply(item, true);
    }

    /**
     * As {@link #apply(Map)}, saying whether the item exists: DynamoDB refuses {@code REMOVE a.b} on an item
     * where {@code a} is not a map (or {@code REMOVE a[0]} where it is not a list), but ignores it on an item that
     * does not exist. Pass the key attributes (or an empty map) as {@code item} when {@code exists} is false.
     *
     * @throws dev.lacuna.ValidationException as {@link #apply(Map)}
     */
    public Map<String, AttributeValue> apply(Map<String, AttributeValue> item, boolean exists) {
        return UpdateApplier.apply(update, item, exists);
    }

    /**
     * The top-level attributes the update may change (set, remove, add to or delete from), in the order first
     * named; for {@code UPDATED_OLD}/{@code UPDATED_NEW} and index maintenance.
     */
    public Set<String> touchedAttributes() {
        return touched;
    }

    /**
     * The parts of {@code item} at the paths this update writes, as {@code UPDATED_OLD} (given the item before)
     * and {@code UPDATED_NEW} (given the item after) return them: {@code SET a.b = :v} gives {@code {a: {b: …}}},
     * not the whole of {@code a}. Paths absent from {@code item} are left out.
     */
    public Map<String, AttributeValue> projectUpdated(Map<String, AttributeValue> item) {
        java.util.List<Ast.Path> paths = new java.util.ArrayList<>();
        update.set().forEach(a -> paths.add(a.path()));
        paths.addAll(update.remove());
        update.add().forEach(a -> paths.add(a.path()));
        update.delete().forEach(a -> paths.add(a.path()));
        return Projector.project(new Ast.Projection(paths), item);
    }

    Update ast() {
        return update;
    }

    @Override
    public String toString() {
        return text;
    }
}
