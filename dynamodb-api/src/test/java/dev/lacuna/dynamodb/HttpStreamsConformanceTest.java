package dev.lacuna.dynamodb;

/** The Streams conformance tests over loopback HTTP: the SDK's DynamoDbStreamsClient against the endpoint. */
class HttpStreamsConformanceTest extends StreamsConformanceTest {
    @Override
    Target open() {
        return Target.http(EndpointOptions.builder());
    }
}
