package dev.lacuna.inspect;

import dev.lacuna.Item;
import dev.lacuna.item.ItemCodec;
import dev.lacuna.item.KeyEncoding;
import dev.lacuna.storage.CorruptionException;
import java.util.StringJoiner;

/**
 * Keys and values as text: an item store's keys decoded by the key encoding ({@code t7 "TICKET#1" 3}), its values
 * by the item codec (DynamoDB JSON); anything else — a byte store's keys, a value that is no item — as printable
 * ASCII with the other bytes escaped ({@code ab\x00\xff}).
 */
public final class Printable {
    private static final int MAX_VALUE_CHARS = 200;

    private Printable() {
    }

    /**
     * A user key: {@code t<id>} and its components when it is an item store's key ({@code S} quoted, {@code N} as
     * a number, {@code B} as {@code b'…'}), else its bytes escaped.
     */
    public static String key(byte[] userKey) {
        try {
            KeyEncoding.Components c = KeyEncoding.decodeComponents(userKey);
            StringJoiner out = new StringJoiner(" ");
            out.add("t" + c.tableId());
            for (var v : c.values()) {
                if (v instanceof dev.lacuna.AttributeValue.S s) {
                    out.add(quote(s.value()));
                } else if (v instanceof dev.lacuna.AttributeValue.N n) {
                    out.add(n.toString());
                } else {
                    out.add("b'" + bytes(((dev.lacuna.AttributeValue.B) v).value()) + "'");
                }
            }
            return out.toString();
        } catch (CorruptionException e) {
            return "'" + bytes(userKey) + "'";
        }
    }

    /** A value: the item it encodes as DynamoDB JSON (cut at 200 characters), else its bytes escaped. */
    public static String value(byte[] value) {
        if (value.length == 0) {
            return "(empty)";
        }
        String text;
        try {
            Item item = ItemCodec.decode(value);
            text = item.toString();
        } catch (CorruptionException e) {
            text = "'" + bytes(value) + "'";
        }
        return text.length() > MAX_VALUE_CHARS ? text.substring(0, MAX_VALUE_CHARS) + "… (" + value.length
                + " bytes)" : text;
    }

    /** {@code b} as printable ASCII, other bytes as {@code \xNN}. */
    public static String bytes(byte[] b) {
        StringBuilder out = new StringBuilder(b.length);
        for (byte x : b) {
            int c = x & 0xff;
            if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
                out.append((char) c);
            } else {
                out.append(String.format("\\x%02x", c));
            }
        }
        return out.toString();
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
