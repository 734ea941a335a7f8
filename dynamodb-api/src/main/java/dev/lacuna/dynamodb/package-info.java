/**
 * Lacuna speaking DynamoDB. {@link dev.lacuna.dynamodb.LacunaDynamoDbClient} is the AWS SDK for Java v2's
 * {@code DynamoDbClient} running in-process over a {@link dev.lacuna.Database}: existing SDK code, the Enhanced
 * Client included, runs embedded with no HTTP and no JVM flags. {@link dev.lacuna.dynamodb.DynamoDbEndpoint} serves
 * the same operations over HTTP in DynamoDB's JSON protocol (version 2012-08-10), for the AWS CLI, boto3 and every
 * other DynamoDB client, verifying SigV4 signatures when credentials are configured
 * ({@link dev.lacuna.dynamodb.EndpointOptions}). {@link dev.lacuna.dynamodb.LacunaDynamoDbStreamsClient} is the SDK's
 * {@code DynamoDbStreamsClient} over the tables' change streams, and the endpoint serves its four operations too
 * ({@code X-Amz-Target: DynamoDBStreams_20120810.<Operation>}).
 *
 * <p>One translation layer serves both: the endpoint decodes a request's JSON into the SDK's own request object
 * (generically, from the field metadata every SDK model class carries), hands it to the in-process client, and
 * encodes the SDK response (or error) back into JSON. So each operation is translated between DynamoDB's shapes and
 * Lacuna's requests exactly once, and both doors answer alike.
 */
package dev.lacuna.dynamodb;
