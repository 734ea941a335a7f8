package dev.lacuna;

/**
 * A request to read every item of a table (or every entry of one of its indexes), partition by partition,
 * or one segment of it ({@link #segment}) so that several threads can scan in parallel. Pages as
 * {@link Query} does. Not thread-safe; build it, then pass it.
 */
public final class Scan extends PageRequest<Scan> {
    /** The most segments a parallel scan may have (DynamoDB's limit). */
    public static final int MAX_SEGMENTS = 1_000_000;

    private int segment;
    private int totalSegments = 1;

    /** Scans the whole table. */
    public Scan() {
    }

    /**
     * Reads only segment {@code segment} of {@code totalSegments} (1 to {@value #MAX_SEGMENTS}): the
     * segments are disjoint and together hold every item.
     */
    public Scan segment(int segment, int totalSegments) {
        if (totalSegments < 1 || totalSegments > MAX_SEGMENTS) {
            throw new ValidationException("TotalSegments must be from 1 to " + MAX_SEGMENTS + ": " + totalSegments);
        }
        if (segment < 0 || segment >= totalSegments) {
            throw new ValidationException("Segment must be from 0 to TotalSegments - 1 (" + (totalSegments - 1)
                    + "): " + segment);
        }
        this.segment = segment;
        this.totalSegments = totalSegments;
        return this;
    }

    /** The segment scanned. */
    public int segment() {
        return segment;
    }

    /** The number of segments the scan is split into. */
    public int totalSegments() {
        return totalSegments;
    }
}
