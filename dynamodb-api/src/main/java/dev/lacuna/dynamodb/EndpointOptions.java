package dev.lacuna.dynamodb;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of a {@link DynamoDbEndpoint}. Immutable; build with {@link #builder()}.
 *
 * @param host            the address to bind ({@code 127.0.0.1} by default: only this machine can connect)
 * @param port            the TCP port (8000 by default, as DynamoDB Local; 0 picks a free one)
 * @param credentials     access key id → secret access key; when empty (the default) any signature, or none, is
 *                        accepted, for local development, and the endpoint logs that it is open at start-up
 * @param sessionTokens   access key id → session token, for temporary credentials (a key here is also in
 *                        {@code credentials}): a request signed with such a key must carry that token
 *                        ({@code X-Amz-Security-Token}), and a request with a token must be signed with such a key
 * @param maxRequestBytes the largest request body accepted (16 MiB by default, DynamoDB's largest batch)
 * @param threads         how many requests run at once (16 by default); writes wait for their fsync on these
 * @param clockSkew       how far a signed request's time may be from the clock (5 minutes, as DynamoDB)
 * @param clock           the clock a request's signing time is checked against
 * @param jvmWideNoDelay  whether {@link DynamoDbEndpoint#start} may turn Nagle's algorithm off for the JDK's HTTP
 *                        server by setting the system property {@code sun.net.httpserver.nodelay} (false by
 *                        default). That property is the JDK server's only switch and is JVM-wide: it is read once,
 *                        when the first JDK HTTP server of the JVM starts, and then holds for every one, the
 *                        application's own included. Without it a response waits for the client's delayed ACK of
 *                        its headers (about 40 ms on Linux; measured: p50 17-33 ms with it, 52-64 ms without, on a
 *                        loaded 2-core machine). A process that owns its JVM ({@code lacuna serve}) sets it; an
 *                        embedding application decides for itself (this flag, or the property at start-up)
 */
public record EndpointOptions(String host, int port, Map<String, String> credentials,
                              Map<String, String> sessionTokens, int maxRequestBytes, int threads, Duration clockSkew,
                              Clock clock, boolean jvmWideNoDelay) {
    /** DynamoDB Local's port. */
    public static final int DEFAULT_PORT = 8000;

    /** Checks every setting. */
    public EndpointOptions {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0 to 65535: " + port);
        }
        credentials = Map.copyOf(credentials);
        sessionTokens = Map.copyOf(sessionTokens);
        if (!credentials.keySet().containsAll(sessionTokens.keySet())) {
            throw new IllegalArgumentException("a session token needs its access key's secret");
        }
        if (maxRequestBytes < 1024) {
            throw new IllegalArgumentException("maxRequestBytes must be at least 1024: " + maxRequestBytes);
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1: " + threads);
        }
        Objects.requireNonNull(clockSkew, "clockSkew");
        if (clockSkew.isNegative()) {
            throw new IllegalArgumentException("clockSkew must not be negative: " + clockSkew);
        }
        Objects.requireNonNull(clock, "clock");
    }

    /** The defaults: 127.0.0.1:8000, no credentials (open), 16 MiB requests, 16 threads. */
    public static EndpointOptions defaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Whether requests must be signed with one of the configured credentials. */
    public boolean requiresSignature() {
        return !credentials.isEmpty();
    }

    /** Builds {@link EndpointOptions}; not thread-safe. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port = DEFAULT_PORT;
        private final Map<String, String> credentials = new LinkedHashMap<>();
        private final Map<String, String> sessionTokens = new LinkedHashMap<>();
        private int maxRequestBytes = 16 * 1024 * 1024;
        private int threads = 16;
        private Duration clockSkew = Duration.ofMinutes(5);
        private Clock clock = Clock.systemUTC();
        private boolean jvmWideNoDelay;

        private Builder() {
        }

        /** Sets {@link EndpointOptions#host()}. */
        public Builder host(String h) {
            host = h;
            return this;
        }

        /** Sets {@link EndpointOptions#port()}. */
        public Builder port(int p) {
            port = p;
            return this;
        }

        /** Adds a credential: requests signed with this access key id must be signed with this secret. */
        public Builder credential(String accessKeyId, String secretAccessKey) {
            credentials.put(Objects.requireNonNull(accessKeyId, "accessKeyId"),
                    Objects.requireNonNull(secretAccessKey, "secretAccessKey"));
            sessionTokens.remove(accessKeyId); // long-term now
            return this;
        }

        /**
         * Adds temporary credentials, as AWS STS hands them out: requests signed with this access key id must be
         * signed with this secret and carry this session token ({@code X-Amz-Security-Token}, as the SDKs send it
         * with session credentials); a wrong or missing token is refused with DynamoDB's
         * {@code UnrecognizedClientException}.
         */
        public Builder temporaryCredential(String accessKeyId, String secretAccessKey, String sessionToken) {
            credential(accessKeyId, secretAccessKey);
            sessionTokens.put(accessKeyId, Objects.requireNonNull(sessionToken, "sessionToken"));
            return this;
        }

        /** Sets {@link EndpointOptions#maxRequestBytes()}. */
        public Builder maxRequestBytes(int n) {
            maxRequestBytes = n;
            return this;
        }

        /** Sets {@link EndpointOptions#threads()}. */
        public Builder threads(int n) {
            threads = n;
            return this;
        }

        /** Sets {@link EndpointOptions#clockSkew()}. */
        public Builder clockSkew(Duration d) {
            clockSkew = d;
            return this;
        }

        /** Sets {@link EndpointOptions#clock()}. */
        public Builder clock(Clock c) {
            clock = c;
            return this;
        }

        /**
         * Sets {@link EndpointOptions#jvmWideNoDelay()}: lets the endpoint set {@code sun.net.httpserver.nodelay}
         * (JVM-wide, for every JDK HTTP server; see there) if nothing set it before.
         */
        public Builder jvmWideNoDelay(boolean b) {
            jvmWideNoDelay = b;
            return this;
        }

        /** Validates and builds. */
        public EndpointOptions build() {
            return new EndpointOptions(host, port, credentials, sessionTokens, maxRequestBytes, threads, clockSkew,
                    clock, jvmWideNoDelay);
        }
    }
}
