package dev.lacuna.expr;

import dev.lacuna.AttributeValue;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.Projection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * A parsed and bound projection expression: the document paths to return. Immutable and thread-safe.
 */
public final class ProjectionExpression {
    private final String text;
    private final Projection projection;

    private ProjectionExpression(String text, Projection projection) {
        this.text = text;
        this.projection = projection;
    }

    /**
     * Parses a {@code ProjectionExpression}, resolving its placeholders in {@code placeholders} (and marking
     * them used).
     *
     * @throws dev.lacuna.ValidationException if it is malformed or over a limit, uses a reserved word or an
     *                                        undefined placeholder, or names overlapping paths ({@code a} and
     *                                        {@code a.b}) or conflicting ones ({@code a[0]} and {@code a.b})
     */
    public static ProjectionExpression parse(String expression, Placeholders placeholders) {
        Projection parsed = ProjectionParser.parse(expression);
        return new ProjectionExpression(expression, new Binder(placeholders, ExpressionKind.PROJECTION).projection(parsed));
    }

    /**
     * A new map with only the projected parts of {@code item}: nested paths keep their enclosing maps and
     * lists (a list keeps only the projected elements, in index order); paths naming nothing are left out.
     */
    public Map<String, AttributeValue> project(Map<String, AttributeValue> item) {
        return Projector.project(projection, item);
    }

    /** The top-level attributes projected, in the order first named. */
    public Set<String> attributeNames() {
        Set<String> names = new LinkedHashSet<>();
        for (Path path : projection.paths()) {
            names.add(path.topLevelName());
        }
        return Collections.unmodifiableSet(names);
    }

    Projection ast() {
        return projection;
    }

    @Override
    public String toString() {
        return text;
    }
}
