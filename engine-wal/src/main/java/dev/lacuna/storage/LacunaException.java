package dev.lacuna.storage;

/**
 * The root of every exception Lacuna throws. Unchecked, as in the DynamoDB SDKs: each subclass names
 * one specific condition, so callers catch what they can handle and let the rest propagate.
 */
public class LacunaException extends RuntimeException {
    /** Creates an exception with a message. */
    public LacunaException(String message) {
        super(message);
    }

    /** Creates an exception with a message and the cause it wraps. */
    public LacunaException(String message, Throwable cause) {
        super(message, cause);
    }
}
