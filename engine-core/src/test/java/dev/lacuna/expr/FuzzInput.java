package dev.lacuna.expr;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decodes a fuzz input into an expression and its placeholders, in a text form seeds can be written in:
 * <pre>
 * the expression (UTF-8; malformed bytes become U+FFFD)
 * NUL
 * one definition a line:
 *   #key=attribute name            an expression attribute name
 *   @key=attribute name            the same, with a key used as is (so malformed keys reach validation)
 *   :key=TYPE:text                 an expression attribute value: S:text  N:12.5  B:0aff  BOOL:true  NULL:
 *                                  SS:a,b  NS:1,2  BS:00,ff  L:S:a|N:1  M:k=S:v|j=N:2 (list and map elements scalar)
 * </pre>
 * Lines that do not parse are skipped, so every input decodes.
 */
record FuzzInput(String expression, Map<String, String> names, Map<String, AttributeValue> values) {

    static FuzzInput decode(byte[] input) {
        int nul = 0;
        while (nul < input.length && input[nul] != 0) {
            nul++;
        }
        String expression = new String(input, 0, nul, StandardCharsets.UTF_8);
        Map<String, String> names = new LinkedHashMap<>();
        Map<String, AttributeValue> values = new LinkedHashMap<>();
        if (nul < input.length) {
            String spec = new String(input, nul + 1, input.length - nul - 1, StandardCharsets.UTF_8);
            for (String line : spec.split("\n", -1)) {
                int eq = line.indexOf('=');
                if (eq < 1) {
                    continue;
                }
                String key = line.substring(0, eq);
                String text = line.substring(eq + 1);
                if (key.charAt(0) == '#') {
                    names.put(key, text);
                } else if (key.charAt(0) == '@') {
                    names.put(key.substring(1), text);
                } else if (key.charAt(0) == ':') {
                    AttributeValue value = value(text);
                    if (value != null) {
                        values.put(key, value);
                    }
                }
            }
        }
        return new FuzzInput(expression, names, values);
    }

    /** The placeholders, or none if the definitions themselves are invalid (which is then the whole check). */
    Placeholders placeholders() {
        try {
            return Placeholders.of(names, values);
        } catch (ValidationException e) {
            return Placeholders.none();
        }
    }

    /**
     * Items to evaluate against: none at all, a fixed one rich in types and nesting, and one holding every
     * defined value under every defined name (so that expressions find what they name).
     */
    List<Map<String, AttributeValue>> items() {
        Map<String, AttributeValue> fromPlaceholders = new LinkedHashMap<>();
        List<AttributeValue> all = new ArrayList<>(values.values());
        int i = 0;
        for (String name : names.values()) {
            if (!all.isEmpty()) {
                fromPlaceholders.put(name, all.get(i++ % all.size()));
            }
        }
        for (Map.Entry<String, AttributeValue> e : values.entrySet()) {
            fromPlaceholders.putIfAbsent(e.getKey().substring(1), e.getValue());
        }
        return List.of(Map.of(), FIXED, fromPlaceholders);
    }

    private static final Map<String, AttributeValue> FIXED = Map.of(
            "pk", AttributeValue.s("USER#1"),
            "sk", AttributeValue.s("ORDER#2024-01-31#\uFFFF"),
            "a", AttributeValue.n(7),
            "b", AttributeValue.l(AttributeValue.s("x"), AttributeValue.n(1),
                    AttributeValue.m(Map.of("c", AttributeValue.ss("p", "q")))),
            "m", AttributeValue.m(Map.of("k", AttributeValue.l(AttributeValue.n(1), AttributeValue.n(2)),
                    "s", AttributeValue.s("text"))),
            "tags", AttributeValue.ss("red", "green"),
            "nums", AttributeValue.ns("1", "2.5"),
            "bin", AttributeValue.b(new byte[] {0, (byte) 0xff}),
            "flag", AttributeValue.bool(true),
            "none", AttributeValue.nul());

    private static AttributeValue value(String text) {
        int colon = text.indexOf(':');
        if (colon < 0) {
            return null;
        }
        String type = text.substring(0, colon);
        String body = text.substring(colon + 1);
        try {
            return switch (type) {
                case "L" -> {
                    List<AttributeValue> list = new ArrayList<>();
                    for (String element : body.isEmpty() ? new String[0] : body.split("\\|", -1)) {
                        AttributeValue v = scalar(element);
                        if (v != null) {
                            list.add(v);
                        }
                    }
                    yield AttributeValue.l(list);
                }
                case "M" -> {
                    Map<String, AttributeValue> map = new LinkedHashMap<>();
                    for (String entry : body.isEmpty() ? new String[0] : body.split("\\|", -1)) {
                        int eq = entry.indexOf('=');
                        AttributeValue v = eq < 0 ? null : scalar(entry.substring(eq + 1));
                        if (v != null) {
                            map.put(entry.substring(0, eq), v);
                        }
                    }
                    yield AttributeValue.m(map);
                }
                default -> scalar(text);
            };
        } catch (ValidationException | IllegalArgumentException e) {
            return null;
        }
    }

    private static AttributeValue scalar(String text) {
        int colon = text.indexOf(':');
        if (colon < 0) {
            return null;
        }
        String body = text.substring(colon + 1);
        try {
            return switch (text.substring(0, colon)) {
                case "S" -> AttributeValue.s(body);
                case "N" -> AttributeValue.n(body);
                case "B" -> AttributeValue.b(HexFormat.of().parseHex(body));
                case "BOOL" -> AttributeValue.bool(Boolean.parseBoolean(body));
                case "NULL" -> AttributeValue.nul();
                case "SS" -> new AttributeValue.SS(new LinkedHashSet<>(List.of(body.split(",", -1))));
                case "NS" -> {
                    Set<BigDecimal> set = new LinkedHashSet<>();
                    for (String n : body.split(",", -1)) {
                        set.add(new BigDecimal(n));
                    }
                    yield new AttributeValue.NS(set);
                }
                case "BS" -> {
                    Set<ByteBuffer> set = new LinkedHashSet<>();
                    for (String b : body.split(",", -1)) {
                        set.add(ByteBuffer.wrap(HexFormat.of().parseHex(b)));
                    }
                    yield new AttributeValue.BS(set);
                }
                default -> null;
            };
        } catch (ValidationException | IllegalArgumentException | ArithmeticException e) {
            return null;
        }
    }
}
