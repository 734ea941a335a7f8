package dev.lacuna.dynamodb;

/** The Streams conformance tests on {@link LacunaDynamoDbStreamsClient}, in-process. */
class InProcessStreamsConformanceTest extends StreamsConformanceTest {
    @Override
    Target open() {
        return Target.inProcess();
    }
}
