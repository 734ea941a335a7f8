package dev.lacuna.dynamodb;

import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.vfs.MemVfs;
import java.net.URI;
import java.nio.file.Path;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * What a conformance test runs against: a database in memory, and the SDK's {@link DynamoDbClient} reaching it
 * (and the SDK's {@link DynamoDbStreamsClient})
 * either in-process ({@link LacunaDynamoDbClient}, {@link LacunaDynamoDbStreamsClient}) or over loopback HTTP ({@link DynamoDbEndpoint}, through the
 * SDK's own HTTP client, signer and JSON protocol). Closes what it opened.
 */
final class Target implements AutoCloseable {
    final Database db;
    final DynamoDbClient client;
    /** The SDK's DynamoDB Streams client, the same way as {@link #client}. */
    final DynamoDbStreamsClient streams;
    final DynamoDbEndpoint endpoint;

    private Target(Database db, DynamoDbClient client, DynamoDbStreamsClient streams, DynamoDbEndpoint endpoint) {
        this.db = db;
        this.client = client;
        this.streams = streams;
        this.endpoint = endpoint;
    }

    static Database memoryDatabase() {
        return Database.open(Path.of("/db"), DatabaseOptions.builder().vfs(new MemVfs()).build());
    }

    static Target inProcess() {
        Database db = memoryDatabase();
        return new Target(db, LacunaDynamoDbClient.create(db), LacunaDynamoDbStreamsClient.create(db), null);
    }

    static Target http(EndpointOptions.Builder options) {
        Database db = memoryDatabase();
        DynamoDbEndpoint endpoint = DynamoDbEndpoint.start(db, options.port(0).build());
        return new Target(db, sdkClient(endpoint.uri(), "AKIDLACUNATEST", "lacuna-test-secret"),
                sdkStreamsClient(endpoint.uri(), "AKIDLACUNATEST", "lacuna-test-secret"), endpoint);
    }

    /** The SDK's DynamoDB Streams client over HTTP to {@code uri}, as {@link #sdkClient}. */
    static DynamoDbStreamsClient sdkStreamsClient(URI uri, String accessKey, String secret) {
        return DynamoDbStreamsClient.builder().endpointOverride(uri).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secret)))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
    }

    /** The SDK's client over HTTP to {@code uri}, signing with the key given, never retrying (errors show at once). */
    static DynamoDbClient sdkClient(URI uri, String accessKey, String secret) {
        return DynamoDbClient.builder().endpointOverride(uri).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secret)))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
    }

    @Override
    public void close() {
        client.close();
        streams.close();
        if (endpoint != null) {
            endpoint.close();
        }
        db.close();
    }
}
