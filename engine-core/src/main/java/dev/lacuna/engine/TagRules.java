package dev.lacuna.engine;

import dev.lacuna.Tag;
import dev.lacuna.ValidationException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * DynamoDB's rules for table tags (developer guide, "Tagging restrictions"; API reference, {@code Tag}): at
 * most {@value #MAX_TAGS} per table, a key of 1 to 128 and a value of 0 to 256 Unicode characters, both of
 * letters, digits, white space and {@code _ . : / = + - @}, keys unique, and the {@code aws:} prefix reserved.
 * Each check runs on the whole request before anything changes. Length and pattern failures use the wording
 * of AWS's request validation ({@code 1 validation error detected: Value … at 'tags.1.member.key' …}).
 */
final class TagRules {
    static final int MAX_TAGS = 50;
    static final int MAX_KEY_CHARS = 128;
    static final int MAX_VALUE_CHARS = 256;
    /** The pattern AWS documents for tag keys and values. */
    static final String PATTERN = "^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$";
    private static final Pattern ALLOWED = Pattern.compile(PATTERN);
    private static final String RESERVED_PREFIX = "aws:";

    private TagRules() {
    }

    /**
     * The tags {@code current} becomes with {@code added} applied (a key already there takes the new value).
     *
     * @throws ValidationException if the request or the result breaks a rule
     */
    static Map<String, String> tag(Map<String, String> current, List<Tag> added) {
        if (added.isEmpty()) {
            throw new ValidationException("Atleast one Tag needs to be provided as Input.");
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < added.size(); i++) {
            Tag t = added.get(i);
            String at = "tags." + (i + 1) + ".member";
            checkKey(t.key(), at + ".key");
            int length = t.value().codePointCount(0, t.value().length());
            if (length > MAX_VALUE_CHARS) {
                throw invalid(t.value(), at + ".value", "Member must have length less than or equal to " + MAX_VALUE_CHARS);
            }
            if (!ALLOWED.matcher(t.value()).matches()) {
                throw invalid(t.value(), at + ".value", "Member must satisfy regular expression pattern: " + PATTERN);
            }
            if (!seen.add(t.key())) {
                throw new ValidationException("One or more parameter values were invalid: Duplicate tag key " + t.key()
                        + " in the request; a table has one tag per key");
            }
        }
        Map<String, String> result = new TreeMap<>(current);
        added.forEach(t -> result.put(t.key(), t.value()));
        if (result.size() > MAX_TAGS) {
            throw new ValidationException("One or more parameter values were invalid: A table can have at most "
                    + MAX_TAGS + " tags; this request would give it " + result.size());
        }
        return result;
    }

    /**
     * The tags {@code current} becomes with {@code keys} removed (a key it does not have is no error).
     *
     * @throws ValidationException if a key breaks a rule
     */
    static Map<String, String> untag(Map<String, String> current, List<String> keys) {
        if (keys.isEmpty()) {
            throw new ValidationException("Atleast one Tag Key needs to be provided as Input.");
        }
        for (int i = 0; i < keys.size(); i++) {
            checkKey(keys.get(i), "tagKeys." + (i + 1) + ".member");
        }
        Map<String, String> result = new TreeMap<>(current);
        keys.forEach(result::remove);
        return result;
    }

    private static void checkKey(String key, String at) {
        if (key == null) {
            throw new ValidationException("1 validation error detected: Value null at '" + at
                    + "' failed to satisfy constraint: Member must not be null");
        }
        int length = key.codePointCount(0, key.length());
        if (length < 1) {
            throw invalid(key, at, "Member must have length greater than or equal to 1");
        }
        if (length > MAX_KEY_CHARS) {
            throw invalid(key, at, "Member must have length less than or equal to " + MAX_KEY_CHARS);
        }
        if (!ALLOWED.matcher(key).matches()) {
            throw invalid(key, at, "Member must satisfy regular expression pattern: " + PATTERN);
        }
        if (key.regionMatches(true, 0, RESERVED_PREFIX, 0, RESERVED_PREFIX.length())) {
            // Checked after the pattern: "aws:" itself is made of allowed characters.
            throw new ValidationException("One or more parameter values were invalid: Tag key " + key
                    + " starts with the reserved prefix aws:; AWS-assigned tags cannot be set or removed by a user");
        }
    }

    private static ValidationException invalid(String value, String at, String constraint) {
        return new ValidationException("1 validation error detected: Value '" + value + "' at '" + at
                + "' failed to satisfy constraint: " + constraint);
    }
}
