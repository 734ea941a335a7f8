package dev.lacuna.expr;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * DynamoDB's reserved words, which an expression may use as an attribute name only through a {@code #name}
 * placeholder. The list (573 words, case-insensitive) is the resource {@code reserved-words.txt} beside this
 * class, copied from the DynamoDB Developer Guide.
 */
final class ReservedWords {
    private static final Set<String> WORDS = load();

    private ReservedWords() {
    }

    /** Whether {@code word} is reserved, ignoring case. */
    static boolean contains(String word) {
        return WORDS.contains(word.toUpperCase(Locale.ROOT));
    }

    /** How many words are reserved. */
    static int size() {
        return WORDS.size();
    }

    private static Set<String> load() {
        Set<String> words = new HashSet<>();
        try (InputStream in = ReservedWords.class.getResourceAsStream("reserved-words.txt")) {
            if (in == null) {
                throw new IllegalStateException("resource dev/lacuna/expr/reserved-words.txt is missing");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                String word = line.strip();
                if (!word.isEmpty() && !word.startsWith("#")) {
                    words.add(word.toUpperCase(Locale.ROOT));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Set.copyOf(words);
    }
}
