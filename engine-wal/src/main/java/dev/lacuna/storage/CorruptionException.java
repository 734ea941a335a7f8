package dev.lacuna.storage;

/**
 * Stored data failed a check (checksum, magic number, length, sequence): it is not what Lacuna wrote.
 * Always names the file and the byte offset where the damage was found, so an operator can look at it;
 * Lacuna never skips corrupt data silently.
 */
public final class CorruptionException extends LacunaException {
    private final String file;
    private final long offset;
    private final String detail;

    /**
     * @param file   the damaged file (its path as the file system names it)
     * @param offset byte offset in {@code file} where the damage was found
     * @param detail what check failed
     */
    public CorruptionException(String file, long offset, String detail) {
        super(detail + " (file " + file + ", offset " + offset + ")");
        this.file = file;
        this.offset = offset;
        this.detail = detail;
    }

    /** What check failed, without the file and offset. */
    public String detail() {
        return detail;
    }

    /** The damaged file. */
    public String file() {
        return file;
    }

    /** Byte offset in {@link #file()} where the damage was found. */
    public long offset() {
        return offset;
    }
}
