package dev.lacuna.index;

import dev.lacuna.IndexSpec;

/**
 * A kind of secondary index, found with {@link java.util.ServiceLoader} (module {@code engine-index}
 * provides the global and local kinds). A {@link dev.lacuna.Database} opens one maintainer per index of
 * each table, of the kind whose {@link #kind()} matches the index's.
 */
public interface IndexKind {
    /** The indexes this kind maintains. */
    IndexSpec.Kind kind();

    /** Opens the maintainer of one index; an asynchronous one starts its work in {@link IndexMaintainer#start}. */
    IndexMaintainer open(IndexContext context);
}
