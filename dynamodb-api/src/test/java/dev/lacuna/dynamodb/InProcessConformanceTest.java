package dev.lacuna.dynamodb;

/** The conformance tests on {@link LacunaDynamoDbClient}, in-process. */
class InProcessConformanceTest extends ConformanceTest {
    @Override
    Target open() {
        return Target.inProcess();
    }
}
