package dev.lacuna.expr;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Parsed update and condition expressions by their text, for one database. Clients send the same few
 * expressions again and again (with other values), and lexing and parsing one costs more than the rest of
 * the write it belongs to; only the parse is kept, so placeholders are still resolved and checked on every
 * use. A parse that fails is not kept. Bounded: when full, it starts again empty (a workload with more
 * distinct expressions than that gains nothing from a cache anyway). Thread-safe.
 */
public final class ParseCache {
    /** Distinct expressions kept by {@link #ParseCache()}. */
    public static final int DEFAULT_CAPACITY = 1024;

    private final int capacity;
    private final ConcurrentHashMap<String, Ast.Update> updates = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Ast.Condition> conditions = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Ast.Condition> filters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, java.util.List<KeyConditionParser.RawTerm>> keyConditions =
            new ConcurrentHashMap<>();

    /** A cache of {@link #DEFAULT_CAPACITY} expressions of each kind. */
    public ParseCache() {
        this(DEFAULT_CAPACITY);
    }

    /** A cache of {@code capacity} expressions of each kind. */
    public ParseCache(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        this.capacity = capacity;
    }

    Ast.Update update(String source) {
        Ast.Update parsed = updates.get(source);
        if (parsed == null) {
            parsed = UpdateParser.parse(source);
            if (updates.size() >= capacity) {
                updates.clear();
            }
            updates.put(source, parsed);
        }
        return parsed;
    }

    /** A condition expression ({@link ExpressionKind#CONDITION}). */
    Ast.Condition condition(String source) {
        return condition(source, ExpressionKind.CONDITION, conditions);
    }

    /** A query's or scan's filter ({@link ExpressionKind#FILTER}, whose errors say so). */
    Ast.Condition filter(String source) {
        return condition(source, ExpressionKind.FILTER, filters);
    }

    private Ast.Condition condition(String source, ExpressionKind kind,
            ConcurrentHashMap<String, Ast.Condition> cache) {
        Ast.Condition parsed = cache.get(source);
        if (parsed == null) {
            parsed = ConditionParser.parse(source, kind);
            if (cache.size() >= capacity) {
                cache.clear();
            }
            cache.put(source, parsed);
        }
        return parsed;
    }

    /** A query's key condition, its terms before their placeholders are bound. */
    java.util.List<KeyConditionParser.RawTerm> keyCondition(String source) {
        java.util.List<KeyConditionParser.RawTerm> parsed = keyConditions.get(source);
        if (parsed == null) {
            parsed = java.util.List.copyOf(KeyConditionParser.parse(source));
            if (keyConditions.size() >= capacity) {
                keyConditions.clear();
            }
            keyConditions.put(source, parsed);
        }
        return parsed;
    }

    /** Expressions kept now, of every kind. */
    int size() {
        return updates.size() + conditions.size() + filters.size() + keyConditions.size();
    }
}
