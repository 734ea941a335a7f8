package dev.lacuna.index;

import dev.lacuna.Item;

/**
 * What one logged write did to one item of a table: the item before and after (null: absent).
 *
 * @param key    the item's encoded key
 * @param before the item as it was, or null
 * @param after  the item as it is now, or null
 */
public record ItemChange(byte[] key, Item before, Item after) {
}
