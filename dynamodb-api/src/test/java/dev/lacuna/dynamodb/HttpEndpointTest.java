package dev.lacuna.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.Database;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The endpoint's protocol, as raw HTTP: DynamoDB's headers on every answer, and DynamoDB's errors (type with its
 * namespace, status, message) for what never reaches an operation: unknown operations, malformed JSON, a wrong
 * content type, an oversize body. Never a stack trace, never a 500 for the client's mistake.
 */
class HttpEndpointTest {
    private Database db;
    private DynamoDbEndpoint endpoint;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        db = Target.memoryDatabase();
        endpoint = DynamoDbEndpoint.start(db, EndpointOptions.builder().port(0).maxRequestBytes(64 * 1024).build());
    }

    @AfterEach
    void stop() {
        endpoint.close();
        db.close();
    }

    private HttpResponse<String> post(String target, String contentType, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(endpoint.uri()).POST(HttpRequest.BodyPublishers.ofString(body));
        if (target != null) {
            b.header("X-Amz-Target", target);
        }
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertDynamoHeaders(HttpResponse<String> r) {
        CRC32 crc = new CRC32();
        crc.update(r.body().getBytes(StandardCharsets.UTF_8));
        assertThat(r.headers().firstValue("x-amz-crc32")).hasValue(Long.toString(crc.getValue()));
        assertThat(r.headers().firstValue("x-amzn-RequestId")).hasValueSatisfying(id -> assertThat(id).hasSize(52));
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/x-amz-json-1.0");
    }

    @Test
    void shouldAnswerAnOperationWithDynamoDbsJsonAndHeaders() throws Exception {
        HttpResponse<String> r = post("DynamoDB_20120810.ListTables", "application/x-amz-json-1.0", "{}");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"TableNames\":[]}");
        assertDynamoHeaders(r);
    }

    @Test
    void shouldAnswerAMissingTableWithResourceNotFoundInDynamoDbsShape() throws Exception {
        HttpResponse<String> r = post("DynamoDB_20120810.DescribeTable", "application/x-amz-json-1.0",
                "{\"TableName\":\"Nope\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).isEqualTo("{\"__type\":\"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException\","
                + "\"message\":\"Requested resource not found: Table: Nope not found\"}");
        assertDynamoHeaders(r);
    }

    @Test
    void shouldAnswerAValidationErrorInItsNamespace() throws Exception {
        HttpResponse<String> r = post("DynamoDB_20120810.DescribeTable", "application/x-amz-json-1.0", "{}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).isEqualTo("{\"__type\":\"com.amazon.coral.validate#ValidationException\",\"message\":"
                + "\"1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must"
                + " not be null\"}");
    }

    @Test
    void shouldAnswerAnUnknownOperationWithUnknownOperationException() throws Exception {
        HttpResponse<String> r = post("DynamoDB_20120810.CreateBackup", "application/x-amz-json-1.0", "{}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).startsWith("{\"__type\":\"com.amazon.coral.service#UnknownOperationException\"");
        assertDynamoHeaders(r);
        assertThat(post(null, "application/x-amz-json-1.0", "{}").body())
                .contains("com.amazon.coral.service#UnknownOperationException");
        assertThat(post("Kinesis_20131202.ListStreams", "application/x-amz-json-1.0", "{}").body())
                .contains("com.amazon.coral.service#UnknownOperationException");
    }

    @Test
    void shouldServeDynamoDbStreamsUnderItsOwnTarget() throws Exception {
        HttpResponse<String> list = post("DynamoDBStreams_20120810.ListStreams", "application/x-amz-json-1.0", "{}");
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(list.body()).isEqualTo("{\"Streams\":[]}");
        assertDynamoHeaders(list);

        HttpResponse<String> bad = post("DynamoDBStreams_20120810.GetRecords", "application/x-amz-json-1.0",
                "{\"ShardIterator\":\"nonsense\"}");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).isEqualTo("{\"__type\":\"com.amazon.coral.validate#ValidationException\","
                + "\"message\":\"Invalid ShardIterator\"}");

        HttpResponse<String> unknown = post("DynamoDBStreams_20120810.DeleteStream", "application/x-amz-json-1.0",
                "{}");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).startsWith("{\"__type\":\"com.amazon.coral.service#UnknownOperationException\"");
        // A DynamoDB operation is not a Streams one, nor the other way round.
        assertThat(post("DynamoDBStreams_20120810.ListTables", "application/x-amz-json-1.0", "{}").body())
                .contains("com.amazon.coral.service#UnknownOperationException");
        assertThat(post("DynamoDB_20120810.GetRecords", "application/x-amz-json-1.0", "{}").body())
                .contains("com.amazon.coral.service#UnknownOperationException");
    }

    @Test
    void shouldAnswerMalformedJsonWithSerializationException() throws Exception {
        for (String bad : new String[] {"{\"TableName\":", "[1,2]", "{\"TableName\": 12}",
                "{\"TableName\":\"T\",\"Key\":{\"pk\":{\"B\":\"not base64!\"}}}", "{} {}"}) {
            HttpResponse<String> r = post("DynamoDB_20120810.GetItem", "application/x-amz-json-1.0", bad);
            assertThat(r.statusCode()).as(bad).isEqualTo(400);
            assertThat(r.body()).as(bad).startsWith("{\"__type\":\"com.amazon.coral.service#SerializationException\","
                    + "\"message\":\"");
            assertDynamoHeaders(r);
        }
    }

    @Test
    void shouldRefuseAWrongContentType() throws Exception {
        HttpResponse<String> r = post("DynamoDB_20120810.ListTables", "text/plain", "{}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("UnknownOperationException").contains("application/x-amz-json-1.0");
    }

    @Test
    void shouldRefuseAnOversizeRequestWithoutReadingIt() throws Exception {
        HttpResponse<String> r = post("DynamoDB_20120810.PutItem", "application/x-amz-json-1.0",
                "{\"TableName\":\"T\",\"Item\":{\"pk\":{\"S\":\"" + "x".repeat(70 * 1024) + "\"}}}");
        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(r.body()).isEqualTo("{\"__type\":\"com.amazon.coral.validate#ValidationException\",\"message\":"
                + "\"Request size exceeds 65536 bytes\"}");
    }

    @Test
    void shouldAnswerTheHealthCheck() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(endpoint.uri()).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).startsWith("healthy: ");
    }

    @Test
    void shouldBindTheLoopbackAddressByDefault() {
        assertThat(EndpointOptions.defaults().host()).isEqualTo("127.0.0.1");
        assertThat(endpoint.address().getAddress().isLoopbackAddress()).isTrue();
        assertThat(endpoint.uri()).isEqualTo(URI.create("http://127.0.0.1:" + endpoint.address().getPort()));
    }
}
