package dev.lacuna.dynamodb;

/**
 * A request the endpoint refuses before it reaches an operation: malformed JSON, an unknown operation, a failed
 * signature. Carries DynamoDB's error type (with the namespace DynamoDB's front end gives it), HTTP status and message.
 */
final class WireException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    static final String CORAL = "com.amazon.coral.service#";

    private final int status;
    private final String type;

    WireException(int status, String type, String message) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
    }

    /** The HTTP status. */
    int status() {
        return status;
    }

    /** The {@code __type}: a namespace, {@code #}, the error code. */
    String type() {
        return type;
    }

    static WireException serialization(String message) {
        return new WireException(400, CORAL + "SerializationException", message);
    }

    static WireException unknownOperation(String message) {
        return new WireException(400, CORAL + "UnknownOperationException", message);
    }

    static WireException missingToken() {
        return new WireException(400, CORAL + "MissingAuthenticationTokenException",
                "Request is missing Authentication Token");
    }

    static WireException unrecognizedClient() {
        return new WireException(400, CORAL + "UnrecognizedClientException",
                "The security token included in the request is invalid.");
    }

    static WireException invalidSignature(String message) {
        return new WireException(400, CORAL + "InvalidSignatureException", message);
    }

    static WireException incompleteSignature(String message) {
        return new WireException(400, CORAL + "IncompleteSignatureException", message);
    }
}
