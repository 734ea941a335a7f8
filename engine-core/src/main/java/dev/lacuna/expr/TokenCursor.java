package dev.lacuna.expr;

import dev.lacuna.ValidationException;
import dev.lacuna.expr.Ast.Index;
import dev.lacuna.expr.Ast.Name;
import dev.lacuna.expr.Ast.NamePlaceholder;
import dev.lacuna.expr.Ast.Path;
import dev.lacuna.expr.Ast.PathElement;
import dev.lacuna.expr.Token.Type;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The parsers' shared state: the tokens and a position in them, the operator count (bounded, see
 * {@link ExpressionLimits}), document-path parsing, and error construction.
 *
 * <p>As in DynamoDB, a syntax error wins over a reserved word: a reserved attribute name (or a path too deep, or a
 * list index beyond 32 bits) is remembered and reported by {@link #expectEnd()} only once the whole expression
 * has parsed.
 */
final class TokenCursor {
    /** Keywords of the grammar itself: where a name is expected they are a syntax error, not a reserved word. */
    private static final Set<String> GRAMMAR_KEYWORDS =
            Set.of("AND", "OR", "NOT", "BETWEEN", "IN", "SET", "REMOVE", "ADD", "DELETE");

    final String source;
    final ExpressionKind kind;
    private final List<Token> tokens;
    private int pos;
    private int operators;
    private ValidationException deferred;

    TokenCursor(String source, ExpressionKind kind) {
        this.source = source;
        this.kind = kind;
        this.tokens = Lexer.tokenize(source, kind);
    }

    Token peek() {
        return tokens.get(pos);
    }

    Token peek(int ahead) {
        return tokens.get(Math.min(pos + ahead, tokens.size() - 1));
    }

    boolean at(Type type) {
        return peek().type() == type;
    }

    boolean atKeyword(String keyword) {
        return peek().isKeyword(keyword);
    }

    Token next() {
        Token t = tokens.get(pos);
        if (t.type() != Type.EOF) {
            pos++;
        }
        return t;
    }

    Token expect(Type type) {
        if (!at(type)) {
            throw unexpected();
        }
        return next();
    }

    void expectKeyword(String keyword) {
        if (!atKeyword(keyword)) {
            throw unexpected();
        }
        next();
    }

    /** A syntax error at the current token. */
    ValidationException unexpected() {
        return kind.error(SyntaxErrors.unexpected(source, tokens, pos));
    }

    /** An error of this expression's kind whose message ends with where the current token starts. */
    ValidationException errorHere(String detail) {
        return kind.error(detail + " (at char " + peek().start() + ")");
    }

    /** Requires the end of input, then reports any error remembered while parsing. */
    void expectEnd() {
        if (!at(Type.EOF)) {
            throw unexpected();
        }
        if (deferred != null) {
            throw deferred;
        }
    }

    /** Counts one operator or function; more than {@link ExpressionLimits#MAX_OPERATORS} is an error. */
    void countOperator() {
        if (++operators > ExpressionLimits.MAX_OPERATORS) {
            throw errorHere("The expression contains too many operators; operator count: " + operators);
        }
    }

    /** Whether a {@code (} after {@code previous} opens arguments (of a function or IN) rather than a group. */
    private static boolean opensArguments(Token previous) {
        return previous.type() == Type.NAME && (!isGrammarKeyword(previous) || previous.isKeyword("IN"));
    }

    /** Whether the current token is a name followed by {@code (}: a function call. */
    boolean atFunctionCall() {
        return at(Type.NAME) && peek(1).type() == Type.LPAREN && !isGrammarKeyword(peek());
    }

    private static boolean isGrammarKeyword(Token t) {
        return GRAMMAR_KEYWORDS.contains(t.text().toUpperCase(Locale.ROOT));
    }

    /** A document path: {@code name ( '.' name | '[' digits ']' )*}, a name being a plain name or {@code #name}. */
    Path path() {
        int start = peek().start();
        List<PathElement> elements = new ArrayList<>();
        elements.add(nameElement());
        while (true) {
            if (at(Type.DOT)) {
                next();
                elements.add(nameElement());
            } else if (at(Type.LBRACKET)) {
                next();
                if (!at(Type.NUMBER)) {
                    throw unexpected();
                }
                Token number = next();
                expect(Type.RBRACKET);
                String digits = number.text();
                if (digits.length() > 10 || Long.parseLong(digits) > Integer.MAX_VALUE) {
                    // DynamoDB parses any digits, then refuses an index beyond 32 bits.
                    defer(kind.error("List index is not within the allowable range; index: [" + digits + "] (at char "
                            + number.start() + ")"));
                    elements.add(new Index(Integer.MAX_VALUE));
                } else {
                    elements.add(new Index(Integer.parseInt(digits)));
                }
            } else {
                break;
            }
        }
        if (elements.size() > ExpressionLimits.MAX_PATH_DEPTH) {
            defer(kind.error("The document path has too many nesting levels; nesting levels: " + elements.size()
                    + " (at char " + start + ")"));
        }
        return new Path(elements);
    }

    private PathElement nameElement() {
        Token t = peek();
        if (t.type() == Type.NAME_PLACEHOLDER) {
            next();
            return new NamePlaceholder(t.text());
        }
        if (t.type() != Type.NAME || isGrammarKeyword(t)) {
            throw unexpected();
        }
        next();
        if (ReservedWords.contains(t.text())) {
            defer(kind.error("Attribute name is a reserved keyword; reserved keyword: " + t.text()));
        }
        return new Name(t.text());
    }

    private void defer(ValidationException e) {
        if (deferred == null) {
            deferred = e;
        }
    }

    /**
     * Rejects redundant parentheses as DynamoDB does in conditions and SET values: a parenthesised group whose
     * whole content is itself one parenthesised group, e.g. {@code ((a = :v))} or {@code SET a = ((:v))}. The
     * parentheses of a function call or of an {@code IN} list group nothing, so {@code size((a))} is not
     * redundant. Unbalanced parentheses are left to the parser.
     */
    void rejectRedundantParentheses() {
        int[] match = new int[tokens.size()];
        Deque<Integer> open = new ArrayDeque<>();
        for (int i = 0; i < tokens.size(); i++) {
            match[i] = -1;
            Type type = tokens.get(i).type();
            if (type == Type.LPAREN) {
                open.push(i);
            } else if (type == Type.RPAREN && !open.isEmpty()) {
                int o = open.pop();
                match[o] = i;
                match[i] = o;
            }
        }
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (tokens.get(i).type() == Type.LPAREN && match[i] >= 0 && !(i > 0 && opensArguments(tokens.get(i - 1)))
                    && tokens.get(i + 1).type() == Type.LPAREN && match[i + 1] == match[i] - 1) {
                throw kind.error("The expression has redundant parentheses; (at char " + tokens.get(i).start() + ")");
            }
        }
    }
}
