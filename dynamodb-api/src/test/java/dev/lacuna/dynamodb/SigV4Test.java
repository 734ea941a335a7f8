package dev.lacuna.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.Database;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.AwsSessionCredentialsIdentity;
import software.amazon.awssdk.regions.Region;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * SigV4 on the endpoint with credentials configured, through the SDK's own signer: a correctly signed request
 * passes; a wrong secret, an unknown access key, no signature at all, and a signature outside the allowed clock
 * skew (either way) fail with DynamoDB's errors and words. Temporary credentials need their session token, and a
 * request presigned by the SDK's signer (query-string auth) is served until its {@code X-Amz-Expires} passes.
 */
class SigV4Test {
    private static final String KEY = "AKIDLACUNATEST";
    private static final String SECRET = "lacuna-test-secret";

    private Database db;
    private DynamoDbEndpoint endpoint;

    private static final String TEMP_KEY = "ASIALACUNATEMP";
    private static final String TEMP_SECRET = "lacuna-temp-secret";
    private static final String TOKEN = "FwoGZXIvYXdzEXAMPLETOKEN//lacuna+session=";

    private DynamoDbEndpoint start(Clock clock) {
        db = Target.memoryDatabase();
        endpoint = DynamoDbEndpoint.start(db, EndpointOptions.builder().port(0).credential(KEY, SECRET)
                .temporaryCredential(TEMP_KEY, TEMP_SECRET, TOKEN).clock(clock).build());
        return endpoint;
    }

    /** The SDK's client signing with temporary credentials (it sends and signs X-Amz-Security-Token). */
    private static DynamoDbClient sessionClient(java.net.URI uri, String key, String secret, String token) {
        return DynamoDbClient.builder().endpointOverride(uri).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsSessionCredentials.create(key, secret, token)))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())).build();
    }

    @Test
    void shouldServeTemporaryCredentialsWithTheirSessionTokenAndRefuseAWrongOrMissingOne() {
        start(Clock.systemUTC());
        try (DynamoDbClient client = sessionClient(endpoint.uri(), TEMP_KEY, TEMP_SECRET, TOKEN)) {
            assertThat(client.listTables().tableNames()).isEmpty();
        }
        String invalid = "The security token included in the request is invalid\\.";
        try (DynamoDbClient client = sessionClient(endpoint.uri(), TEMP_KEY, TEMP_SECRET, TOKEN + "x")) {
            assertRefused(client, "UnrecognizedClientException", invalid);
        }
        try (DynamoDbClient client = Target.sdkClient(endpoint.uri(), TEMP_KEY, TEMP_SECRET)) {
            assertRefused(client, "UnrecognizedClientException", invalid); // a temporary key without its token
        }
        try (DynamoDbClient client = sessionClient(endpoint.uri(), KEY, SECRET, TOKEN)) {
            assertRefused(client, "UnrecognizedClientException", invalid); // a token with a long-term key
        }
    }

    /** A ListTables request presigned by the SDK's own SigV4 signer (query-string auth) for {@code expires}. */
    private SdkHttpRequest presigned(String key, String secret, String token, Duration expires, Clock clock) {
        SdkHttpFullRequest request = SdkHttpFullRequest.builder().method(SdkHttpMethod.POST).uri(endpoint.uri())
                .encodedPath("/").putHeader("Content-Type", "application/x-amz-json-1.0")
                .putHeader("X-Amz-Target", "DynamoDB_20120810.ListTables").build();
        AwsCredentialsIdentity identity = token == null ? AwsCredentialsIdentity.create(key, secret)
                : AwsSessionCredentialsIdentity.create(key, secret, token);
        return AwsV4HttpSigner.create().sign(r -> r.identity(identity).request(request)
                .payload(ContentStreamProvider.fromUtf8String("{}"))
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "dynamodb")
                .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                .putProperty(AwsV4HttpSigner.AUTH_LOCATION, AwsV4HttpSigner.AuthLocation.QUERY_STRING)
                .putProperty(AwsV4HttpSigner.EXPIRATION_DURATION, expires)
                .putProperty(AwsV4HttpSigner.SIGNING_CLOCK, clock)).request();
    }

    /** Sends {@code signed} (its query string carries the signature) with body {@code body}. */
    private static HttpResponse<String> send(SdkHttpRequest signed, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(signed.getUri());
        signed.forEachHeader((name, values) -> {
            if (!name.equalsIgnoreCase("host")) { // the client sends Host itself, the same
                values.forEach(v -> b.header(name, v));
            }
        });
        return HttpClient.newHttpClient().send(b.POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldServeAPresignedRequestUntilItExpires() throws Exception {
        start(Clock.systemUTC());
        SdkHttpRequest signed = presigned(KEY, SECRET, null, Duration.ofMinutes(1), Clock.systemUTC());
        assertThat(signed.rawQueryParameters()).containsKeys("X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date",
                "X-Amz-Expires", "X-Amz-SignedHeaders", "X-Amz-Signature");
        assertThat(signed.firstMatchingHeader("Authorization")).isEmpty();
        HttpResponse<String> ok = send(signed, "{}");
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        assertThat(ok.body()).isEqualTo("{\"TableNames\":[]}");

        HttpResponse<String> tampered = send(signed, "{\"Limit\":1}"); // the body is signed too
        assertThat(tampered.statusCode()).isEqualTo(400);
        assertThat(tampered.body()).contains("InvalidSignatureException");

        SdkHttpRequest temporary = presigned(TEMP_KEY, TEMP_SECRET, TOKEN, Duration.ofMinutes(1), Clock.systemUTC());
        assertThat(temporary.rawQueryParameters()).containsKey("X-Amz-Security-Token");
        assertThat(send(temporary, "{}").statusCode()).isEqualTo(200);
        HttpResponse<String> wrongToken = send(presigned(TEMP_KEY, TEMP_SECRET, TOKEN + "x", Duration.ofMinutes(1),
                Clock.systemUTC()), "{}");
        assertThat(wrongToken.statusCode()).isEqualTo(400);
        assertThat(wrongToken.body()).isEqualTo("{\"__type\":\"com.amazon.coral.service#UnrecognizedClientException\","
                + "\"message\":\"The security token included in the request is invalid.\"}");

        // Signed 10 minutes ago, valid for 5: expired, whatever the skew allows a header-signed request.
        HttpResponse<String> expired = send(presigned(KEY, SECRET, null, Duration.ofMinutes(5),
                Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-10))), "{}");
        assertThat(expired.statusCode()).isEqualTo(400);
        assertThat(expired.body()).startsWith("{\"__type\":\"com.amazon.coral.service#InvalidSignatureException\","
                + "\"message\":\"Signature expired: ");
        // Signed 10 minutes ago, valid for 15: still valid, though older than the skew.
        assertThat(send(presigned(KEY, SECRET, null, Duration.ofMinutes(15),
                Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-10))), "{}").statusCode()).isEqualTo(200);
    }

    @AfterEach
    void stop() {
        endpoint.close();
        db.close();
    }

    private static void assertRefused(DynamoDbClient client, String code, String message) {
        assertThatThrownBy(client::listTables).isInstanceOfSatisfying(DynamoDbException.class, e -> {
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
            assertThat(e.awsErrorDetails().errorMessage()).matches(message);
            assertThat(e.statusCode()).isEqualTo(400);
        });
    }

    @Test
    void shouldServeACorrectlySignedRequest() {
        start(Clock.systemUTC());
        assertThat(endpoint.requiresSignature()).isTrue();
        try (DynamoDbClient client = Target.sdkClient(endpoint.uri(), KEY, SECRET)) {
            client.createTable(b -> b.tableName("Signed")
                    .attributeDefinitions(ConformanceTest.def("id", ScalarAttributeType.S))
                    .keySchema(ConformanceTest.key("id", KeyType.HASH)));
            assertThat(client.listTables().tableNames()).containsExactly("Signed");
        }
    }

    @Test
    void shouldServeACorrectlySignedStreamsRequest() {
        start(Clock.systemUTC());
        // The SDK's DynamoDB Streams client signs for the service "dynamodb" too.
        try (DynamoDbStreamsClient streams = Target.sdkStreamsClient(endpoint.uri(), KEY, SECRET)) {
            assertThat(streams.listStreams().streams()).isEmpty();
        }
        try (DynamoDbStreamsClient streams = Target.sdkStreamsClient(endpoint.uri(), KEY, "not-the-secret")) {
            assertThatThrownBy(streams::listStreams).isInstanceOfSatisfying(DynamoDbException.class,
                    e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidSignatureException"));
        }
    }

    @Test
    void shouldRefuseAWrongSecret() {
        start(Clock.systemUTC());
        try (DynamoDbClient client = Target.sdkClient(endpoint.uri(), KEY, "not-the-secret")) {
            assertRefused(client, "InvalidSignatureException", "The request signature we calculated does not match the"
                    + " signature you provided\\. Check your AWS Secret Access Key and signing method\\. Consult the"
                    + " service documentation for details\\.");
        }
    }

    @Test
    void shouldRefuseAnUnknownAccessKey() {
        start(Clock.systemUTC());
        try (DynamoDbClient client = Target.sdkClient(endpoint.uri(), "AKIDSOMEONEELSE", SECRET)) {
            assertRefused(client, "UnrecognizedClientException", "The security token included in the request is"
                    + " invalid\\.");
        }
    }

    @Test
    void shouldRefuseAnUnsignedRequest() throws Exception {
        start(Clock.systemUTC());
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(endpoint.uri())
                .header("X-Amz-Target", "DynamoDB_20120810.ListTables")
                .header("Content-Type", "application/x-amz-json-1.0")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).isEqualTo("{\"__type\":\"com.amazon.coral.service#MissingAuthenticationTokenException\","
                + "\"message\":\"Request is missing Authentication Token\"}");
    }

    @Test
    void shouldRefuseASignatureOlderThanTheAllowedSkew() {
        start(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10)));
        try (DynamoDbClient client = Target.sdkClient(endpoint.uri(), KEY, SECRET)) {
            assertRefused(client, "InvalidSignatureException", "Signature expired: \\d{8}T\\d{6}Z is now earlier than"
                    + " \\d{8}T\\d{6}Z \\(\\d{8}T\\d{6}Z - 5 min\\.\\)");
        }
    }

    @Test
    void shouldRefuseASignatureFromTooFarInTheFuture() {
        start(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-10)));
        try (DynamoDbClient client = Target.sdkClient(endpoint.uri(), KEY, SECRET)) {
            assertRefused(client, "InvalidSignatureException", "Signature not yet current: \\d{8}T\\d{6}Z is still"
                    + " later than \\d{8}T\\d{6}Z \\(\\d{8}T\\d{6}Z \\+ 5 min\\.\\)");
        }
    }
}
