package dev.lacuna.expr;

import dev.lacuna.expr.Ast.Index;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.PathElement;
import java.util.List;

/**
 * Rejects two bound paths of one update or projection that overlap (one is the other or a prefix of it, e.g.
 * {@code a} and {@code a.b}) or conflict (at some step one indexes a list and the other names a map key, e.g.
 * {@code a[1]} and {@code a.b}), with DynamoDB's messages.
 */
final class PathOverlap {
    private PathOverlap() {
    }

    static void check(List<Path> paths, ExpressionKind kind) {
        for (int i = 0; i < paths.size(); i++) {
            for (int j = i + 1; j < paths.size(); j++) {
                check(paths.get(i), paths.get(j), kind);
            }
        }
    }

    private static void check(Path one, Path two, ExpressionKind kind) {
        List<PathElement> a = one.elements();
        List<PathElement> b = two.elements();
        int common = Math.min(a.size(), b.size());
        for (int k = 0; k < common; k++) {
            PathElement x = a.get(k);
            PathElement y = b.get(k);
            if ((x instanceof Index) != (y instanceof Index)) {
                throw kind.error("Two document paths conflict with each other; must remove or rewrite one of these paths;"
                        + " path one: " + one.describe() + ", path two: " + two.describe());
            }
            if (!x.equals(y)) {
                return;
            }
        }
        throw kind.error("Two document paths overlap with each other; must remove or rewrite one of these paths;"
                + " path one: " + one.describe() + ", path two: " + two.describe());
    }
}
