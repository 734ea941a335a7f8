package dev.lacuna.base;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Unsigned LEB128 varints and length-prefixed byte strings, the manifest's field encodings. */
public final class Varints {
    private Varints() {
    }

    public static void put(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write((int) v);
    }

    public static void putBytes(ByteArrayOutputStream out, byte[] b) {
        put(out, b.length);
        out.writeBytes(b);
    }

    public static void putString(ByteArrayOutputStream out, String s) {
        putBytes(out, s.getBytes(StandardCharsets.UTF_8));
    }
}
