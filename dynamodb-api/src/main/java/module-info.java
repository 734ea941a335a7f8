/**
 * Lacuna speaking DynamoDB: {@link dev.lacuna.dynamodb.LacunaDynamoDbClient}, the AWS SDK's {@code DynamoDbClient}
 * in-process over a {@link dev.lacuna.Database}, and {@link dev.lacuna.dynamodb.DynamoDbEndpoint}, an HTTP endpoint
 * speaking DynamoDB's JSON protocol (with SigV4) on the JDK's HTTP server. Exports only {@code dev.lacuna.dynamodb};
 * the translation, the JSON codec and the signature check are package-private in it.
 */
module dev.lacuna.dynamodb {
    requires transitive dev.lacuna.secondary;
    requires transitive software.amazon.awssdk.services.dynamodb;
    requires transitive software.amazon.awssdk.core;
    requires transitive software.amazon.awssdk.awscore;
    requires software.amazon.awssdk.utils;
    requires com.fasterxml.jackson.core;
    requires jdk.httpserver;

    exports dev.lacuna.dynamodb;
}
