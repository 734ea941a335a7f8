package dev.lacuna.expr;

import dev.lacuna.AttributeValue;
import dev.lacuna.expr.Ast.Index;
import dev.lacuna.expr.Ast.Name;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.PathElement;
import dev.lacuna.expr.Ast.Projection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Applies a bound projection to an item: the result holds only the values at the projected paths, inside the
 * same nesting of maps and lists as in the item. Paths that name nothing are left out. A list keeps only its
 * projected elements, in index order and without gaps ({@code l[1], l[3]} of {@code [a, b, c, d]} gives
 * {@code [b, d]}), as DynamoDB returns them.
 */
final class Projector {
    private Projector() {
    }

    static Map<String, AttributeValue> project(Projection projection, Map<String, AttributeValue> item) {
        Map<String, Object> root = new LinkedHashMap<>();
        for (Path path : projection.paths()) {
            AttributeValue value = Values.get(item, path);
            if (value != null) {
                insert(root, path.elements(), value);
            }
        }
        Map<String, AttributeValue> result = new LinkedHashMap<>();
        root.forEach((name, node) -> result.put(name, build(node)));
        return result;
    }

    /**
     * Puts {@code value} into the tree at the path; the tree's inner nodes are {@code LinkedHashMap}s (for maps)
     * and {@code TreeMap}s keyed by index (for lists). Paths do not overlap, so a leaf never meets a node.
     */
    @SuppressWarnings("unchecked")
    private static void insert(Map<String, Object> root, List<PathElement> elements, AttributeValue value) {
        Object node = root;
        for (int i = 0; i < elements.size(); i++) {
            PathElement step = elements.get(i);
            boolean last = i == elements.size() - 1;
            Object key = step instanceof Index index ? (Object) index.index() : ((Name) step).name();
            Map<Object, Object> children = (Map<Object, Object>) node;
            if (last) {
                children.put(key, value);
            } else {
                boolean list = elements.get(i + 1) instanceof Index;
                node = children.computeIfAbsent(key, k -> list ? new TreeMap<Integer, Object>() : new LinkedHashMap<String, Object>());
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static AttributeValue build(Object node) {
        if (node instanceof AttributeValue value) {
            return value;
        }
        if (node instanceof TreeMap<?, ?> list) {
            List<AttributeValue> elements = new ArrayList<>();
            for (Object child : list.values()) {
                elements.add(build(child));
            }
            return new AttributeValue.L(elements);
        }
        Map<String, AttributeValue> map = new LinkedHashMap<>();
        ((Map<String, Object>) node).forEach((name, child) -> map.put(name, build(child)));
        return new AttributeValue.M(map);
    }
}
