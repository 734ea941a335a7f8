package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue.Type;
import dev.lacuna.expr.ConditionExpression;
import dev.lacuna.expr.Placeholders;
import dev.lacuna.expr.ProjectionExpression;
import dev.lacuna.expr.UpdateExpression;
import java.math.BigDecimal;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Validation messages worded as DynamoDB words them, since clients match on them: numbers out of range or
 * precision, an expression over 4 KB, two indexes with one name, an empty string or binary in a key.
 */
class ErrorWordingTest {
    private static final String OVERFLOW =
            "Number overflow. Attempting to store a number with magnitude larger than supported range";
    private static final String UNDERFLOW =
            "Number underflow. Attempting to store a number with magnitude smaller than supported range";

    @Test
    void shouldSayNumberOverflowAboveTheLargestMagnitude() {
        assertThatThrownBy(() -> AttributeValue.n("1E+126")).isInstanceOf(ValidationException.class).hasMessage(OVERFLOW);
        assertThatThrownBy(() -> AttributeValue.n("-1E+126")).hasMessage(OVERFLOW);
        assertThatThrownBy(() -> new AttributeValue.N(new BigDecimal("1E+2147483647"))).hasMessage(OVERFLOW);
    }

    @Test
    void shouldSayNumberUnderflowBelowTheSmallestMagnitude() {
        assertThatThrownBy(() -> AttributeValue.n("1E-131")).isInstanceOf(ValidationException.class).hasMessage(UNDERFLOW);
        assertThatThrownBy(() -> AttributeValue.n("-0.5E-130")).hasMessage(UNDERFLOW);
    }

    @Test
    void shouldSayNumberOverflowForTheResultOfAnAddition() {
        AttributeValue max = AttributeValue.n("9.9999999999999999999999999999999999999E+125");
        UpdateExpression twice = UpdateExpression.parse("SET a = a + a", Placeholders.none());
        assertThatThrownBy(() -> twice.apply(Map.of("a", max))).isInstanceOf(ValidationException.class).hasMessage(OVERFLOW);
        UpdateExpression add = UpdateExpression.parse("ADD a :m", Placeholders.of(Map.of(), Map.of(":m", max)));
        assertThatThrownBy(() -> add.apply(Map.of("a", max))).hasMessage(OVERFLOW);
    }

    @Test
    void shouldSayTooManyDigitsAsDynamoDbDoes() {
        assertThatThrownBy(() -> AttributeValue.n("1" + "2".repeat(37) + "3"))
                .hasMessage("Attempting to store more than 38 significant digits in a Number");
        AttributeValue nines = AttributeValue.n("9".repeat(38) + "E+50");
        UpdateExpression plus = UpdateExpression.parse("SET a = a + :one", Placeholders.of(Map.of(),
                Map.of(":one", AttributeValue.n("1"))));
        assertThatThrownBy(() -> plus.apply(Map.of("a", nines)))
                .hasMessage("Attempting to store more than 38 significant digits in a Number");
    }

    @Test
    void shouldSayAValueIsNotANumberAsDynamoDbDoes() {
        assertThatThrownBy(() -> AttributeValue.n("abc"))
                .hasMessage("The parameter cannot be converted to a numeric value: abc");
    }

    @Test
    void shouldGiveTheSizeOfAConditionOverFourKilobytes() {
        String big = "a = :v" + " ".repeat(4091);
        assertThatThrownBy(() -> ConditionExpression.parseCondition(big, Placeholders.none()))
                .isInstanceOf(ValidationException.class)
                .hasMessage("Invalid ConditionExpression: Expression size has exceeded the maximum allowed size;"
                        + " expression size: 4097");
        assertThatThrownBy(() -> ConditionExpression.parseFilter(big + "\u00e9", Placeholders.none()))
                .hasMessage("Invalid FilterExpression: Expression size has exceeded the maximum allowed size;"
                        + " expression size: 4099");
    }

    @Test
    void shouldNotGiveTheSizeOfAnUpdateOrProjectionOverFourKilobytes() {
        assertThatThrownBy(() -> UpdateExpression.parse("SET a = :v" + " ".repeat(4090), Placeholders.none()))
                .hasMessage("Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;");
        assertThatThrownBy(() -> ProjectionExpression.parse("a" + " ".repeat(4096), Placeholders.none()))
                .hasMessage("Invalid ProjectionExpression: Expression size has exceeded the maximum allowed size;");
    }

    @Test
    void shouldSayDuplicateIndexName() {
        assertThatThrownBy(() -> TableSpec.builder("Table").partitionKey("pk", Type.S).sortKey("sk", Type.S)
                .index(IndexSpec.global("Ix1", KeyAttribute.s("a"), null))
                .index(IndexSpec.local("Ix1", KeyAttribute.s("b"))).build())
                .isInstanceOf(ValidationException.class)
                .hasMessage("Duplicate index name: Ix1");
    }

    @Test
    void shouldSayAKeyCannotContainAnEmptyStringOrBinary() {
        assertThatThrownBy(() -> Key.of("k", AttributeValue.s("")))
                .isInstanceOf(ValidationException.class)
                .hasMessage("One or more parameter values are not valid. The AttributeValue for a key attribute cannot"
                        + " contain an empty string value. Key: k");
        assertThatThrownBy(() -> Key.of("pk", AttributeValue.s("x"), "sk", AttributeValue.b(new byte[0])))
                .hasMessage("One or more parameter values are not valid. The AttributeValue for a key attribute cannot"
                        + " contain an empty binary value. Key: sk");
    }
}
