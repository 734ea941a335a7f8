package dev.lacuna.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/** The generic JSON codec on its own: DynamoDB's wire forms of each member type, both ways. */
class SdkJsonTest {
    private final SdkJson json = new SdkJson();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldReadARequestWithNestedValuesAndSkipUnknownMembers() {
        PutItemRequest r = (PutItemRequest) json.read(utf8("{\"TableName\":\"T\",\"Unknown\":{\"deep\":[1,{\"x\":null}]},"
                + "\"Item\":{\"pk\":{\"S\":\"a\"},\"b\":{\"B\":\"aGk=\"},\"m\":{\"M\":{\"l\":{\"L\":[{\"N\":\"1\"},"
                + "{\"NULL\":true}]}}},\"ss\":{\"SS\":[\"x\",\"y\"]}},\"ReturnValues\":\"ALL_OLD\"}"),
                SdkJson.pojo(PutItemRequest::builder).get());
        assertThat(r.tableName()).isEqualTo("T");
        assertThat(r.returnValues()).isEqualTo(ReturnValue.ALL_OLD);
        assertThat(r.item()).containsEntry("pk", AttributeValue.fromS("a"))
                .containsEntry("b", AttributeValue.fromB(SdkBytes.fromUtf8String("hi")))
                .containsEntry("m", AttributeValue.fromM(Map.of("l", AttributeValue.fromL(List.of(AttributeValue.fromN("1"),
                        AttributeValue.fromNul(true))))))
                .containsEntry("ss", AttributeValue.fromSs(List.of("x", "y")));
        assertThat(r.hasExpected()).isFalse();
    }

    @Test
    void shouldReadAnEmptyBodyAsAnEmptyRequest() {
        PutItemRequest r = (PutItemRequest) json.read(new byte[0], SdkJson.pojo(PutItemRequest::builder).get());
        assertThat(r.tableName()).isNull();
    }

    @Test
    void shouldWriteTimestampsAsEpochSecondsAndLeaveOutWhatIsUnset() {
        byte[] out = json.write(TableDescription.builder().tableName("T")
                .creationDateTime(Instant.ofEpochMilli(1_700_000_000_123L)).itemCount(3L).build());
        assertThat(new String(out, StandardCharsets.UTF_8))
                .isEqualTo("{\"TableName\":\"T\",\"CreationDateTime\":1700000000.123,\"ItemCount\":3}");
        TableDescription back = (TableDescription) json.read(out, SdkJson.pojo(TableDescription::builder).get());
        assertThat(back.creationDateTime()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_123L));
        assertThat(back.hasKeySchema()).isFalse();
    }

    @Test
    void shouldWriteUnprocessedKeysAndItemsInDynamoDbsShapeAndReadThemBack() {
        var unprocessedKeys = BatchGetItemResponse.builder().responses(Map.of("T", List.of()))
                .unprocessedKeys(Map.of("T", KeysAndAttributes.builder().keys(Map.of("pk", AttributeValue.fromS("a")))
                        .consistentRead(true).projectionExpression("pk").build())).build();
        byte[] keys = json.write(unprocessedKeys);
        assertThat(new String(keys, StandardCharsets.UTF_8)).isEqualTo("{\"Responses\":{\"T\":[]},\"UnprocessedKeys\":"
                + "{\"T\":{\"Keys\":[{\"pk\":{\"S\":\"a\"}}],\"ConsistentRead\":true,\"ProjectionExpression\":\"pk\"}}}");
        assertThat(json.read(keys, SdkJson.pojo(BatchGetItemResponse::builder).get())).isEqualTo(unprocessedKeys);

        // Lacuna applies a write batch whole, so the endpoint never leaves items unprocessed; the shape is DynamoDB's.
        var unprocessedItems = BatchWriteItemResponse.builder().unprocessedItems(Map.of("T", List.of(
                WriteRequest.builder().putRequest(p -> p.item(Map.of("pk", AttributeValue.fromS("a")))).build(),
                WriteRequest.builder().deleteRequest(d -> d.key(Map.of("pk", AttributeValue.fromS("b")))).build())))
                .build();
        byte[] items = json.write(unprocessedItems);
        assertThat(new String(items, StandardCharsets.UTF_8)).isEqualTo("{\"UnprocessedItems\":{\"T\":["
                + "{\"PutRequest\":{\"Item\":{\"pk\":{\"S\":\"a\"}}}},{\"DeleteRequest\":{\"Key\":{\"pk\":{\"S\":\"b\"}}}}]}}");
        assertThat(json.read(items, SdkJson.pojo(BatchWriteItemResponse::builder).get())).isEqualTo(unprocessedItems);
    }

    @Test
    void shouldRefuseAValueOfTheWrongShapeWithASerializationException() {
        assertThatThrownBy(() -> json.read(utf8("{\"Item\":{\"pk\":\"not a structure\"}}"),
                SdkJson.pojo(PutItemRequest::builder).get()))
                .isInstanceOfSatisfying(WireException.class, e -> {
                    assertThat(e.type()).isEqualTo("com.amazon.coral.service#SerializationException");
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.getMessage()).isEqualTo("Unexpected string for Item.pk, expected a structure");
                });
    }
}
