package dev.lacuna.item;

import dev.lacuna.AttributeValue;
import java.util.LinkedHashMap;

/**
 * The attribute map of an item being decoded. {@link dev.lacuna.Item#of} takes such a map as it is, without
 * the copy and the name checks it gives a caller's map: the decoder has already refused every name an item
 * could not have (empty, twice, not UTF-8), and nothing else can make one (the constructor is this
 * package's, and the decoder drops its reference once the item is built). A query page decodes every item
 * it returns, so the copy was a tenth of a queue read.
 */
public final class DecodedAttributes extends LinkedHashMap<String, AttributeValue> {
    private static final long serialVersionUID = 1L;

    DecodedAttributes(int expected) {
        super(Math.max(16, (int) (expected / 0.75f) + 1));
    }
}
