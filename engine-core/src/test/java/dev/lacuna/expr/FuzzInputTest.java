package dev.lacuna.expr;

import static dev.lacuna.AttributeValue.l;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.AttributeValue.ss;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.lacuna.AttributeValue;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The fuzz input format, and that the hand-written seeds still say what they are meant to. */
class FuzzInputTest {

    @Test
    void shouldDecodeExpressionNamesAndValues() {
        FuzzInput in = FuzzInput.decode("a = :v\0#n=name\n@k=raw\n:v=N:1.50\n:l=L:S:a|N:2\n:s=SS:x,y\n:bad=N:x\nnoise"
                .getBytes(StandardCharsets.UTF_8));
        assertThat(in.expression()).isEqualTo("a = :v");
        assertThat(in.names()).isEqualTo(Map.of("#n", "name", "k", "raw"));
        assertThat(in.values()).isEqualTo(Map.of(":v", AttributeValue.n("1.5"), ":l", l(s("a"), n(2)), ":s", ss("x", "y")));
        assertThat(in.items()).hasSize(3);
    }

    @ParameterizedTest
    @CsvSource({
            "condition, seed-comparisons", "condition, seed-functions", "condition, seed-between-in",
            "update, seed-all-clauses", "update, seed-nested", "projection, seed-paths",
            "keyCondition, seed-between", "keyCondition, seed-begins-with-reversed", "keyCondition, seed-comparison"})
    void shouldKeepTheValidSeedsValid(String method, String seed) throws IOException {
        FuzzInput in = FuzzInput.decode(read(method + "/" + seed));
        Placeholders placeholders = Placeholders.of(in.names(), in.values());
        assertThatCode(() -> {
            switch (method) {
                case "condition" -> ConditionExpression.parseCondition(in.expression(), placeholders);
                case "update" -> UpdateExpression.parse(in.expression(), placeholders);
                case "projection" -> ProjectionExpression.parse(in.expression(), placeholders);
                default -> KeyConditionExpression.parse(in.expression(), placeholders);
            }
            placeholders.requireAllUsed();
        }).doesNotThrowAnyException();
    }

    private static byte[] read(String name) throws IOException {
        try (InputStream stream = FuzzInputTest.class.getResourceAsStream("ExprFuzzTestInputs/" + name)) {
            assertThat(stream).as(name).isNotNull();
            return stream.readAllBytes();
        }
    }
}
