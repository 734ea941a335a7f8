package dev.lacuna;

import dev.lacuna.storage.LacunaException;
import java.util.List;

/**
 * A transaction was cancelled and nothing of it was written: {@link #reasons()} holds one reason per
 * item of the request, in order, naming each item that failed ({@code ConditionalCheckFailed}, …) and
 * {@code None} for the others.
 */
public final class TransactionCanceledException extends LacunaException {
    private final transient List<CancellationReason> reasons;

    /** Creates the exception with one reason per item of the request. */
    public TransactionCanceledException(List<CancellationReason> reasons) {
        super("Transaction cancelled, please refer cancellation reasons for specific reasons "
                + reasons.stream().map(CancellationReason::code).toList());
        this.reasons = List.copyOf(reasons);
    }

    /** One reason per item of the request, in its order. */
    public List<CancellationReason> reasons() {
        return reasons;
    }
}
