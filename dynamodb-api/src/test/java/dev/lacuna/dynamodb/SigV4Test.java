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
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * SigV4 on the endpoint with credentials configured, through the SDK's own signer: a correctly signed request
 * passes; a wrong secret, an unknown access key, no signature at all, and a signature outside the allowed clock
 * skew (either way) fail with DynamoDB's errors and words.
 */
class SigV4Test {
    private static final String KEY = "AKIDLACUNATEST";
    private static final String SECRET = "lacuna-test-secret";

    private Database db;
    private DynamoDbEndpoint endpoint;

    private DynamoDbEndpoint start(Clock clock) {
        db = Target.memoryDatabase();
        endpoint = DynamoDbEndpoint.start(db, EndpointOptions.builder().port(0).credential(KEY, SECRET).clock(clock)
                .build());
        return endpoint;
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
