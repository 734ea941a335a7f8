package dev.lacuna.base;

/**
 * UTF-8 facts about Java strings, computed without encoding them. DynamoDB strings are UTF-8, so a Java
 * string with an unpaired surrogate has no value there: encoding it would silently turn the surrogate into
 * '?', breaking sizes, key order and round trips. Every check of that rule calls {@link #unpairedSurrogate}.
 */
public final class Utf8 {
    private Utf8() {
    }

    /** The number of bytes of {@code s} in UTF-8 (a well-formed surrogate pair is 4, anything else by code unit). */
    public static long length(String s) {
        long bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /** The index of the first unpaired surrogate of {@code s}, or -1 if it is well-formed UTF-16. */
    public static int unpairedSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }
}
