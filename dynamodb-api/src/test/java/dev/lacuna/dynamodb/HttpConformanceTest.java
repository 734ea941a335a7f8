package dev.lacuna.dynamodb;

/** The conformance tests over loopback HTTP: the SDK's HTTP client, signer and JSON protocol against the endpoint. */
class HttpConformanceTest extends ConformanceTest {
    @Override
    Target open() {
        return Target.http(EndpointOptions.builder());
    }
}
