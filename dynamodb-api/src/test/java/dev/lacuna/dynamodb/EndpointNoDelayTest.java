package dev.lacuna.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.Database;
import org.junit.jupiter.api.Test;

/**
 * The endpoint leaves the JDK HTTP server's JVM-wide Nagle switch ({@code sun.net.httpserver.nodelay}) alone unless
 * the embedder asks ({@link EndpointOptions#jvmWideNoDelay()}), and never overrides an explicit setting. (The test
 * JVM sets the property, see the pom; the JDK reads it once, so clearing it here changes no server's behaviour.)
 */
class EndpointNoDelayTest {
    private static final String NO_DELAY = "sun.net.httpserver.nodelay";

    @Test
    void shouldSetTheJvmWideNoDelayPropertyOnlyWhenAsked() {
        String before = System.getProperty(NO_DELAY);
        try (Database db = Target.memoryDatabase()) {
            DynamoDbEndpoint.start(db, EndpointOptions.builder().port(0).build()).close(); // the JDK reads it here
            System.clearProperty(NO_DELAY);
            DynamoDbEndpoint.start(db, EndpointOptions.builder().port(0).build()).close();
            assertThat(System.getProperty(NO_DELAY)).as("left alone by default").isNull();

            System.setProperty(NO_DELAY, "false");
            DynamoDbEndpoint.start(db, EndpointOptions.builder().port(0).jvmWideNoDelay(true).build()).close();
            assertThat(System.getProperty(NO_DELAY)).as("an explicit setting is kept").isEqualTo("false");

            System.clearProperty(NO_DELAY);
            DynamoDbEndpoint.start(db, EndpointOptions.builder().port(0).jvmWideNoDelay(true).build()).close();
            assertThat(System.getProperty(NO_DELAY)).as("set when asked").isEqualTo("true");
        } finally {
            if (before == null) {
                System.clearProperty(NO_DELAY);
            } else {
                System.setProperty(NO_DELAY, before);
            }
        }
    }
}
