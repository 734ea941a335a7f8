package dev.lacuna.dynamodb;

import com.fasterxml.jackson.core.JsonGenerator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.lacuna.Database;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * An HTTP endpoint speaking DynamoDB's JSON protocol (API version 2012-08-10) over a Lacuna {@link Database}, for
 * any DynamoDB client: the AWS SDKs, the AWS CLI, boto3. A request is {@code POST /} with
 * {@code Content-Type: application/x-amz-json-1.0} and {@code X-Amz-Target: DynamoDB_20120810.<Operation>}; the
 * answer carries {@code x-amzn-RequestId} and {@code x-amz-crc32} (the CRC32 of the body, which the SDKs check), and
 * an error is DynamoDB's JSON ({@code {"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",
 * "message":"..."}}) with DynamoDB's HTTP status: 400 for what the client got wrong, 500 only for a failure inside
 * Lacuna. The operations are {@link LacunaDynamoDbClient}'s, and DynamoDB Streams' ({@code X-Amz-Target:
 * DynamoDBStreams_20120810.<Operation>}: ListStreams, DescribeStream, GetShardIterator, GetRecords) are
 * {@link LacunaDynamoDbStreamsClient}'s, so one endpoint serves both SDK clients; any other operation answers
 * {@code UnknownOperationException}.
 *
 * <p>With credentials configured ({@link EndpointOptions#credentials()}) every request must be signed with AWS
 * Signature Version 4 by one of them; with none, any signature (or none) is accepted, which the endpoint logs when
 * it starts. It binds {@code 127.0.0.1} unless told otherwise.
 *
 * <p>Served by the JDK's own HTTP server ({@code jdk.httpserver}): no dependency, logging through
 * {@link System.Logger}, and an executor that virtual threads can replace once Lacuna requires Java 21. Requests run
 * on {@link EndpointOptions#threads()} threads of the endpoint's own, which {@link #close()} stops; the database
 * stays its opener's to close, after the endpoint.
 */
public final class DynamoDbEndpoint implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(DynamoDbEndpoint.class.getName());
    static final String JSON_TYPE = "application/x-amz-json-1.0";
    static final String DYNAMODB_NS = "com.amazonaws.dynamodb.v20120810#";
    static final String VALIDATION_NS = "com.amazon.coral.validate#";
    private static final String NO_DELAY = "sun.net.httpserver.nodelay";

    private final HttpServer server;
    private final ExecutorService executor;
    private final DynamoDbClient client;
    private final DynamoDbStreamsClient streams;
    private final EndpointOptions options;
    private final SigV4 signatures;
    private final SdkJson json = new SdkJson();

    private DynamoDbEndpoint(DynamoDbClient client, DynamoDbStreamsClient streams, EndpointOptions options)
            throws IOException {
        this.client = client;
        this.streams = streams;
        this.options = options;
        this.signatures = options.requiresSignature()
                ? new SigV4(options.credentials(), options.sessionTokens(), options.clock(), options.clockSkew()) : null;
        this.server = HttpServer.create(new InetSocketAddress(options.host(), options.port()), 0);
        AtomicInteger n = new AtomicInteger();
        ThreadFactory threads = r -> {
            Thread t = new Thread(r, "lacuna-dynamodb-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        this.executor = Executors.newFixedThreadPool(options.threads(), threads);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /**
     * Starts an endpoint serving {@code db} as {@code options} say; it listens when this returns.
     *
     * @throws UncheckedIOException if the address cannot be bound (the port is taken, say)
     */
    public static DynamoDbEndpoint start(Database db, EndpointOptions options) {
        Objects.requireNonNull(db, "db");
        Objects.requireNonNull(options, "options");
        // The JDK's server writes a response's headers and body as two segments; with Nagle's algorithm on, the body
        // waits for the client's delayed ACK of the headers (tens of milliseconds per request). Its only switch is
        // this property, JVM-wide and read once when the JDK's server first starts in the JVM: set only when the
        // embedder asked for it, and an explicit setting is kept.
        if (options.jvmWideNoDelay() && System.getProperty(NO_DELAY) == null) {
            System.setProperty(NO_DELAY, "true");
        }
        if (!Boolean.getBoolean(NO_DELAY)) {
            LOG.log(System.Logger.Level.INFO, "DynamoDB endpoint: the JDK's HTTP server sends with Nagle's algorithm"
                    + " on ({0} is not true), so a response may wait tens of milliseconds for the client's delayed ACK;"
                    + " set it to true before the JVM's first HTTP server starts, or EndpointOptions.jvmWideNoDelay",
                    NO_DELAY);
        }
        DynamoDbEndpoint endpoint;
        try {
            endpoint = new DynamoDbEndpoint(LacunaDynamoDbClient.create(db), LacunaDynamoDbStreamsClient.create(db),
                    options);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + options.host() + ":" + options.port(), e);
        }
        if (options.requiresSignature()) {
            LOG.log(System.Logger.Level.INFO, "DynamoDB endpoint on {0}: requests must be signed (SigV4) by one of {1}"
                    + " access key(s)", endpoint.uri(), options.credentials().size());
        } else {
            LOG.log(System.Logger.Level.WARNING, "DynamoDB endpoint on {0}: no credentials configured, any signature"
                    + " is accepted", endpoint.uri());
        }
        return endpoint;
    }

    /** The address it listens on (with the port chosen, if 0 was asked). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** The endpoint's URI, for an SDK's {@code endpointOverride} or the AWS CLI's {@code --endpoint-url}. */
    public URI uri() {
        InetSocketAddress a = server.getAddress();
        String host = a.getAddress().isAnyLocalAddress() ? "127.0.0.1" : a.getAddress().getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        return URI.create("http://" + host + ":" + a.getPort());
    }

    /** Whether requests must be signed (credentials are configured). */
    public boolean requiresSignature() {
        return options.requiresSignature();
    }

    /**
     * Stops listening and waits (up to 10 seconds) for the requests in flight to finish, so that the database can be
     * closed after. Idempotent.
     */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdown();
        try {
            if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** An answer: status, body, content type. */
    private record Answer(int status, byte[] body, String contentType) {
    }

    private void handle(HttpExchange exchange) throws IOException {
        String requestId = Errors.requestId();
        Answer answer;
        try {
            answer = answer(exchange);
        } catch (WireException e) {
            answer = error(e.status(), e.type(), e.getMessage(), g -> { });
        } catch (AwsServiceException e) {
            answer = error(e);
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "request " + requestId + " failed inside the endpoint", e);
            answer = error(500, DYNAMODB_NS + "InternalServerError", "Internal server error: " + e, g -> { });
        }
        CRC32 crc = new CRC32();
        crc.update(answer.body());
        var headers = exchange.getResponseHeaders();
        headers.set("Content-Type", answer.contentType());
        headers.set("x-amzn-RequestId", requestId);
        headers.set("x-amz-crc32", Long.toString(crc.getValue()));
        exchange.sendResponseHeaders(answer.status(), answer.body().length == 0 ? -1 : answer.body().length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer.body());
        } finally {
            exchange.close();
        }
    }

    private Answer answer(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getRawPath();
        if ("GET".equals(method) && "/".equals(path)) {
            // DynamoDB's health check answer, which load balancers and scripts poll.
            return new Answer(200, "healthy: lacuna".getBytes(StandardCharsets.UTF_8), "text/plain");
        }
        if (!"POST".equals(method)) {
            throw WireException.unknownOperation("DynamoDB's operations are POST requests to /; this is " + method);
        }
        byte[] body = body(exchange);
        if (signatures != null) {
            signatures.verify(method, path, exchange.getRequestURI().getRawQuery(),
                    name -> exchange.getRequestHeaders().get(name), body);
        }
        String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
        if (contentType == null || !contentType.trim().toLowerCase(java.util.Locale.ROOT).startsWith(JSON_TYPE)) {
            throw WireException.unknownOperation("The request's Content-Type must be " + JSON_TYPE + ", not "
                    + contentType);
        }
        String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
        Operations.Operation op = Operations.forTarget(target);
        if (op == null) {
            throw WireException.unknownOperation(target == null ? "The request has no X-Amz-Target header"
                    : "Lacuna does not serve the operation " + target);
        }
        Object request = json.read(body, op.builder().get());
        SdkPojo response = op.call().apply(client, streams, request);
        return new Answer(200, json.write(response), JSON_TYPE);
    }

    private byte[] body(HttpExchange exchange) throws IOException {
        int max = options.maxRequestBytes();
        String declared = exchange.getRequestHeaders().getFirst("Content-Length");
        if (declared != null) {
            try {
                if (Long.parseLong(declared.trim()) > max) {
                    throw tooLarge(max);
                }
            } catch (NumberFormatException e) {
                throw WireException.serialization("Content-Length is not a number: " + declared);
            }
        }
        try (InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readNBytes(max + 1);
            if (body.length > max) {
                throw tooLarge(max);
            }
            return body;
        }
    }

    private static WireException tooLarge(int max) {
        return new WireException(413, VALIDATION_NS + "ValidationException", "Request size exceeds " + max + " bytes");
    }

    private Answer error(AwsServiceException e) {
        String code = e.awsErrorDetails().errorCode();
        String message = e.awsErrorDetails().errorMessage();
        String type = ("ValidationException".equals(code) ? VALIDATION_NS : DYNAMODB_NS) + code;
        if (e instanceof TransactionCanceledException t) {
            // DynamoDB spells this one's message with a capital M, beside its reasons.
            return answerJson(e.statusCode(), g -> {
                g.writeStringField("__type", type);
                g.writeStringField("Message", message);
                g.writeArrayFieldStart("CancellationReasons");
                for (CancellationReason r : t.cancellationReasons()) {
                    json.writeStructure(g, r);
                }
                g.writeEndArray();
            });
        }
        if (e instanceof ConditionalCheckFailedException c && c.hasItem()) {
            return error(e.statusCode(), type, message, g -> {
                g.writeObjectFieldStart("Item");
                for (Map.Entry<String, AttributeValue> a : c.item().entrySet()) {
                    g.writeFieldName(a.getKey());
                    json.writeStructure(g, a.getValue());
                }
                g.writeEndObject();
            });
        }
        return error(e.statusCode(), type, message, g -> { });
    }

    private Answer error(int status, String type, String message, SdkJson.Writer extra) {
        return answerJson(status, g -> {
            g.writeStringField("__type", type);
            if (message != null) {
                g.writeStringField("message", message);
            }
            extra.write(g);
        });
    }

    private Answer answerJson(int status, SdkJson.Writer members) {
        return new Answer(status, json.write((JsonGenerator g) -> {
            g.writeStartObject();
            members.write(g);
            g.writeEndObject();
        }), JSON_TYPE);
    }
}
