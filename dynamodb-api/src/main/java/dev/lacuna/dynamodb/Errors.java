package dev.lacuna.dynamodb;

import dev.lacuna.CancellationReason;
import dev.lacuna.ConditionalCheckFailedException;
import dev.lacuna.ExpiredIteratorException;
import dev.lacuna.IdempotentParameterMismatchException;
import dev.lacuna.ResourceInUseException;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.TransactionCanceledException;
import dev.lacuna.TrimmedDataAccessException;
import dev.lacuna.ValidationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.InternalServerErrorException;

/**
 * Lacuna's exceptions as the SDK's: each becomes the exception DynamoDB's service would have made the SDK throw, with
 * DynamoDB's error code, HTTP status and message, so that code catching {@code ConditionalCheckFailedException} or
 * checking {@code awsErrorDetails().errorCode()} behaves alike in-process, over HTTP and against DynamoDB.
 */
final class Errors {
    private static final System.Logger LOG = System.getLogger(Errors.class.getName());
    static final String SERVICE = "DynamoDb";
    /** The service name the SDK's DynamoDB Streams client puts in its exceptions' error details. */
    static final String STREAMS_SERVICE = "DynamoDbStreams";
    private static final String UNKNOWN = "UNKNOWN_TO_SDK_VERSION";

    private Errors() {
    }

    /** DynamoDB's {@code ValidationException} (not a modeled exception: a {@link DynamoDbException} by its code). */
    static DynamoDbException validation(String message) {
        return (DynamoDbException) DynamoDbException.builder().message(message).statusCode(400)
                .awsErrorDetails(details("ValidationException", message)).requestId(requestId()).build();
    }

    /**
     * DynamoDB's complaint about a request member that breaks its model's constraint, as its validator words it:
     * {@code 1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null}.
     */
    static DynamoDbException constraint(Object value, String member, String constraint) {
        String shown = value == null ? "null" : "'" + value + "'";
        return validation("1 validation error detected: Value " + shown + " at '" + member
                + "' failed to satisfy constraint: " + constraint);
    }

    /** {@code value} if it is given, else DynamoDB's "Member must not be null" for {@code member}. */
    static <T> T required(T value, String member) {
        if (value == null) {
            throw constraint(null, member, "Member must not be null");
        }
        return value;
    }

    /** The constant of {@code type} named {@code raw} (null if absent), else DynamoDB's enum constraint message. */
    static <E extends Enum<E>> E enumValue(String raw, String member, Class<E> type) {
        if (raw == null) {
            return null;
        }
        List<String> names = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(UNKNOWN)) {
                continue; // the SDK's stand-in for a value newer than it, never one DynamoDB accepts
            }
            if (e.name().equals(raw)) {
                return e;
            }
            names.add(e.name());
        }
        throw constraint(raw, member, "Member must satisfy enum value set: " + names);
    }

    /** An {@link AwsErrorDetails} with DynamoDB's service name. */
    static AwsErrorDetails details(String code, String message) {
        return AwsErrorDetails.builder().errorCode(code).errorMessage(message).serviceName(SERVICE).build();
    }

    /** A request id shaped like DynamoDB's (52 upper-case letters and digits). */
    static String requestId() {
        String a = UUID.randomUUID().toString().replace("-", "");
        String b = UUID.randomUUID().toString().replace("-", "");
        return (a + b).substring(0, 52).toUpperCase(Locale.ROOT);
    }

    /** Runs {@code operation} for an SDK client, reporting a failure as the SDK's exception ({@link #translate}). */
    static <T> T call(java.util.function.Supplier<T> operation) {
        try {
            return operation.get();
        } catch (RuntimeException e) {
            throw translate(e);
        }
    }

    /**
     * Runs {@code operation} for the SDK's DynamoDB Streams client: as {@link #call}, the exception naming the service
     * as the SDK's own Streams client does ({@value #STREAMS_SERVICE}), so that code logging or checking
     * {@code awsErrorDetails().serviceName()} sees the same in-process and over HTTP.
     */
    static <T> T callStreams(java.util.function.Supplier<T> operation) {
        try {
            return operation.get();
        } catch (RuntimeException e) {
            AwsServiceException sdk = translate(e);
            throw (AwsServiceException) sdk.toBuilder().awsErrorDetails(sdk.awsErrorDetails().toBuilder()
                    .serviceName(STREAMS_SERVICE).build()).build();
        }
    }

    /** DynamoDB's {@code LimitExceededException} (HTTP 400) with {@code message}. */
    static AwsServiceException limitExceeded(String message) {
        return (AwsServiceException) software.amazon.awssdk.services.dynamodb.model.LimitExceededException.builder()
                .message(message).statusCode(400).requestId(requestId())
                .awsErrorDetails(details("LimitExceededException", message)).build();
    }

    /** The SDK exception DynamoDB would have caused for {@code e}. */
    static AwsServiceException translate(RuntimeException e) {
        if (e instanceof AwsServiceException sdk) {
            return sdk;
        }
        if (e instanceof ValidationException) {
            return validation(e.getMessage());
        }
        String id = requestId();
        if (e instanceof ConditionalCheckFailedException c) {
            var b = software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException.builder()
                    .message(e.getMessage()).statusCode(400).requestId(id)
                    .awsErrorDetails(details("ConditionalCheckFailedException", e.getMessage()));
            c.item().ifPresent(item -> b.item(Values.sdk(item)));
            return (AwsServiceException) b.build();
        }
        if (e instanceof TransactionCanceledException t) {
            List<software.amazon.awssdk.services.dynamodb.model.CancellationReason> reasons = new ArrayList<>();
            for (CancellationReason r : t.reasons()) {
                var rb = software.amazon.awssdk.services.dynamodb.model.CancellationReason.builder().code(r.code())
                        .message(r.message());
                r.currentItem().ifPresent(item -> rb.item(Values.sdk(item)));
                reasons.add(rb.build());
            }
            return (AwsServiceException) software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException
                    .builder().message(e.getMessage()).statusCode(400).requestId(id)
                    .awsErrorDetails(details("TransactionCanceledException", e.getMessage()))
                    .cancellationReasons(reasons).build();
        }
        if (e instanceof ResourceNotFoundException) {
            return (AwsServiceException) software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException
                    .builder().message(e.getMessage()).statusCode(400).requestId(id)
                    .awsErrorDetails(details("ResourceNotFoundException", e.getMessage())).build();
        }
        if (e instanceof TrimmedDataAccessException) {
            return (AwsServiceException) software.amazon.awssdk.services.dynamodb.model.TrimmedDataAccessException
                    .builder().message(e.getMessage()).statusCode(400).requestId(id)
                    .awsErrorDetails(details("TrimmedDataAccessException", e.getMessage())).build();
        }
        if (e instanceof ExpiredIteratorException) {
            return (AwsServiceException) software.amazon.awssdk.services.dynamodb.model.ExpiredIteratorException
                    .builder().message(e.getMessage()).statusCode(400).requestId(id)
                    .awsErrorDetails(details("ExpiredIteratorException", e.getMessage())).build();
        }
        if (e instanceof ResourceInUseException) {
            return (AwsServiceException) software.amazon.awssdk.services.dynamodb.model.ResourceInUseException
                    .builder().message(e.getMessage()).statusCode(400).requestId(id)
                    .awsErrorDetails(details("ResourceInUseException", e.getMessage())).build();
        }
        if (e instanceof IdempotentParameterMismatchException) {
            return (AwsServiceException) software.amazon.awssdk.services.dynamodb.model
                    .IdempotentParameterMismatchException.builder().message(e.getMessage()).statusCode(400)
                    .requestId(id).awsErrorDetails(details("IdempotentParameterMismatchException", e.getMessage()))
                    .build();
        }
        // A storage failure (a closed database, a full disk, corruption) or a bug: DynamoDB's 500, whose message
        // says what happened; the stack trace goes to the log, never to the client.
        LOG.log(System.Logger.Level.WARNING, "request failed inside Lacuna (answered InternalServerError " + id + ")", e);
        String message = "Internal server error: " + e;
        return (AwsServiceException) InternalServerErrorException.builder().message(message).statusCode(500)
                .requestId(id).awsErrorDetails(details("InternalServerError", message)).build();
    }
}
