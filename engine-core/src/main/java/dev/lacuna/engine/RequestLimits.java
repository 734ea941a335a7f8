package dev.lacuna.engine;

import dev.lacuna.PutItem;
import dev.lacuna.TransactWrite;
import dev.lacuna.ValidationException;
import dev.lacuna.item.ItemSize;
import java.util.List;

/** DynamoDB's limits on the size of multi-item requests, checked in one place. */
final class RequestLimits {
    /** The largest response of a batch get, in item bytes (DynamoDB's 16 MB). */
    static final long BATCH_GET_BYTES = 16L << 20;
    /** The largest total of the items a batch write puts (16 MB). */
    static final long BATCH_WRITE_BYTES = 16L << 20;
    /** The largest total of the items a transaction puts (4 MB). */
    static final long TRANSACTION_BYTES = 4L << 20;
    /** Items in a transaction (written or read). */
    static final int TRANSACTION_ITEMS = 100;

    private RequestLimits() {
    }

    /** Refuses a request of {@code n} items unless it holds 1 to {@code max}. */
    static void checkCount(String operation, int n, int max) {
        if (n < 1 || n > max) {
            throw new ValidationException(operation + " takes 1 to " + max + " items: " + n);
        }
    }

    /** Refuses {@code items} if the items they put total more than {@code max} bytes. */
    static void checkPutBytes(String operation, List<TransactWrite> items, long max) {
        long bytes = 0;
        for (TransactWrite w : items) {
            if (w.op() instanceof PutItem p) {
                bytes += ItemSize.of(p.item());
            }
        }
        if (bytes > max) {
            throw new ValidationException(operation + ": the items total " + bytes + " bytes; at most " + (max >> 20)
                    + " MB");
        }
    }
}
