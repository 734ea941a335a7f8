package dev.lacuna;

/** What a change stream's records carry of the item written (DynamoDB's {@code StreamViewType}). */
public enum StreamViewType {
    /** Only the item's key attributes. */
    KEYS_ONLY,
    /** The item as it is after the write (none for a {@code REMOVE}). */
    NEW_IMAGE,
    /** The item as it was before the write (none for an {@code INSERT}). */
    OLD_IMAGE,
    /** Both images. */
    NEW_AND_OLD_IMAGES;

    /** Whether records of this view carry the item before the write. */
    public boolean hasOldImage() {
        return this == OLD_IMAGE || this == NEW_AND_OLD_IMAGES;
    }

    /** Whether records of this view carry the item after the write. */
    public boolean hasNewImage() {
        return this == NEW_IMAGE || this == NEW_AND_OLD_IMAGES;
    }
}
