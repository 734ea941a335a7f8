package dev.lacuna.expr;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import dev.lacuna.expr.Ast.Index;
import dev.lacuna.expr.Ast.Name;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.PathElement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Rewrites the value at a bound document path inside a mutable attribute map, rebuilding the immutable maps
 * and lists along the way. The function given the current value (null if absent) returns the new one, or null
 * to remove it; removing a list element shifts the later ones down, and writing past a list's end appends.
 */
final class PathOps {
    private PathOps() {
    }

    /**
     * Applies {@code change} at {@code path} in {@code item}.
     *
     * @param strict whether a missing or mistyped step before the last is an error (for actions that write a
     *               value) rather than a no-op (for actions that only take something away)
     */
    static void modify(Map<String, AttributeValue> item, Path path, UnaryOperator<AttributeValue> change, boolean strict) {
        String top = path.topLevelName();
        List<PathElement> elements = path.elements();
        AttributeValue current = item.get(top);
        AttributeValue updated;
        if (elements.size() == 1) {
            updated = change.apply(current);
        } else if (current == null) {
            if (strict) {
                throw invalidPath();
            }
            return;
        } else {
            updated = modify(current, elements, 1, change, strict);
        }
        if (updated == null) {
            item.remove(top);
        } else {
            item.put(top, updated);
        }
    }

    private static AttributeValue modify(AttributeValue container, List<PathElement> elements, int i,
                                         UnaryOperator<AttributeValue> change, boolean strict) {
        PathElement step = elements.get(i);
        boolean last = i == elements.size() - 1;
        if (step instanceof Name name && container instanceof AttributeValue.M m) {
            Map<String, AttributeValue> copy = new LinkedHashMap<>(m.values());
            AttributeValue child = copy.get(name.name());
            AttributeValue updated;
            if (last) {
                updated = change.apply(child);
            } else if (child == null) {
                return missing(container, strict);
            } else {
                updated = modify(child, elements, i + 1, change, strict);
            }
            if (updated == null) {
                copy.remove(name.name());
            } else {
                copy.put(name.name(), updated);
            }
            return new AttributeValue.M(copy);
        }
        if (step instanceof Index index && container instanceof AttributeValue.L l) {
            List<AttributeValue> copy = new ArrayList<>(l.values());
            int at = index.index();
            AttributeValue child = at < copy.size() ? copy.get(at) : null;
            AttributeValue updated;
            if (last) {
                updated = change.apply(child);
            } else if (child == null) {
                return missing(container, strict);
            } else {
                updated = modify(child, elements, i + 1, change, strict);
            }
            if (updated == null) {
                if (at < copy.size()) {
                    copy.remove(at);
                }
            } else if (at < copy.size()) {
                copy.set(at, updated);
            } else {
                copy.add(updated);
            }
            return new AttributeValue.L(copy);
        }
        return missing(container, strict);
    }

    private static AttributeValue missing(AttributeValue container, boolean strict) {
        if (strict) {
            throw invalidPath();
        }
        return container;
    }

    static ValidationException invalidPath() {
        return new ValidationException("The document path provided in the update expression is invalid for update");
    }
}
