package dev.lacuna.expr;

import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.Projection;
import dev.lacuna.expr.Token.Type;
import java.util.ArrayList;
import java.util.List;

/** Parses projection expressions: {@code path ( ',' path )*}. */
final class ProjectionParser {
    private ProjectionParser() {
    }

    static Projection parse(String source) {
        TokenCursor in = new TokenCursor(source, ExpressionKind.PROJECTION);
        List<Path> paths = new ArrayList<>();
        paths.add(in.path());
        while (in.at(Type.COMMA)) {
            in.next();
            paths.add(in.path());
        }
        in.expectEnd();
        return new Projection(paths);
    }
}
