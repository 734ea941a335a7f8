#!/usr/bin/env python3
"""A smoke run of boto3 (botocore's own JSON protocol and SigV4 signer) against a Lacuna DynamoDB endpoint.

Usage: boto3_smoke.py ENDPOINT_URL   (credentials from the usual AWS_* environment variables)

Exercises tables, items, conditions, queries on a global index, batches, transactions with cancellation reasons,
DescribeTable's approximate counts and the DynamoDB Streams API, asserting DynamoDB's documented answers. Prints one
line per step and "boto3 smoke: OK" at the end; exits non-zero at the first difference.
"""
import sys

import boto3
from botocore.exceptions import ClientError

endpoint = sys.argv[1]
dynamo = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1")
streams = boto3.client("dynamodbstreams", endpoint_url=endpoint, region_name="us-east-1")
TABLE = "Boto3Smoke"
checks = 0


def check(condition, what):
    global checks
    if not condition:
        raise AssertionError(what)
    checks += 1
    print("ok:", what)


def error_code(call, **kwargs):
    try:
        call(**kwargs)
    except ClientError as e:
        return e.response["Error"]["Code"], e.response
    return None, None


created = dynamo.create_table(
    TableName=TABLE,
    AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "gpk")],
    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    GlobalSecondaryIndexes=[{"IndexName": "ByG", "KeySchema": [{"AttributeName": "gpk", "KeyType": "HASH"}],
                             "Projection": {"ProjectionType": "ALL"}}],
    StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    BillingMode="PAY_PER_REQUEST")
check(created["TableDescription"]["TableStatus"] == "ACTIVE", "create_table answers ACTIVE")
dynamo.get_waiter("table_exists").wait(TableName=TABLE)
check(TABLE in dynamo.list_tables()["TableNames"], "list_tables names the table")

for i in range(5):
    dynamo.put_item(TableName=TABLE, Item={"pk": {"S": "A"}, "sk": {"S": "%02d" % i}, "n": {"N": str(i)},
                                           "gpk": {"S": "G" + str(i % 2)}})
got = dynamo.get_item(TableName=TABLE, Key={"pk": {"S": "A"}, "sk": {"S": "03"}}, ConsistentRead=True)
check(got["Item"]["n"] == {"N": "3"}, "get_item returns the item put")

code, response = error_code(dynamo.put_item, TableName=TABLE, Item={"pk": {"S": "A"}, "sk": {"S": "03"}},
                            ConditionExpression="attribute_not_exists(pk)",
                            ReturnValuesOnConditionCheckFailure="ALL_OLD")
check(code == "ConditionalCheckFailedException", "a failed condition is ConditionalCheckFailedException")
check(response["Item"]["n"] == {"N": "3"}, "ReturnValuesOnConditionCheckFailure returns the item")

updated = dynamo.update_item(TableName=TABLE, Key={"pk": {"S": "A"}, "sk": {"S": "01"}},
                             UpdateExpression="ADD n :d SET #t = :t", ExpressionAttributeNames={"#t": "tag"},
                             ExpressionAttributeValues={":d": {"N": "10"}, ":t": {"S": "x"}}, ReturnValues="ALL_NEW")
check(updated["Attributes"]["n"] == {"N": "11"}, "update_item ADDs and returns ALL_NEW")

pages = dynamo.get_paginator("query").paginate(TableName=TABLE, KeyConditionExpression="pk = :p",
                                                ExpressionAttributeValues={":p": {"S": "A"}}, Limit=2)
keys = [item["sk"]["S"] for page in pages for item in page["Items"]]
check(keys == ["00", "01", "02", "03", "04"], "the query paginator pages in sort-key order")

# The index is maintained asynchronously: poll it as DynamoDB's users do.
import time
deadline = time.time() + 30
while True:
    g1 = dynamo.query(TableName=TABLE, IndexName="ByG", KeyConditionExpression="gpk = :g",
                      ExpressionAttributeValues={":g": {"S": "G1"}})
    if g1["Count"] == 2 or time.time() > deadline:
        break
    time.sleep(0.1)
check(sorted(i["sk"]["S"] for i in g1["Items"]) == ["01", "03"], "a global index query finds its items")

scan = dynamo.scan(TableName=TABLE, FilterExpression="n >= :m", ExpressionAttributeValues={":m": {"N": "3"}})
check(scan["Count"] == 3 and scan["ScannedCount"] == 5, "scan filters after reading (Count 3, ScannedCount 5)")

dynamo.batch_write_item(RequestItems={TABLE: [{"PutRequest": {"Item": {"pk": {"S": "B"}, "sk": {"S": str(i)}}}}
                                              for i in range(10)]})
batch = dynamo.batch_get_item(RequestItems={TABLE: {"Keys": [{"pk": {"S": "B"}, "sk": {"S": str(i)}}
                                                             for i in range(10)]}})
check(len(batch["Responses"][TABLE]) == 10 and batch["UnprocessedKeys"] == {}, "batch_get_item reads the batch")

code, response = error_code(dynamo.transact_write_items, TransactItems=[
    {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "C"}, "sk": {"S": "1"}}}},
    {"ConditionCheck": {"TableName": TABLE, "Key": {"pk": {"S": "A"}, "sk": {"S": "00"}},
                        "ConditionExpression": "attribute_not_exists(pk)"}}])
check(code == "TransactionCanceledException", "a failed transaction is TransactionCanceledException")
check([r["Code"] for r in response["CancellationReasons"]] == ["None", "ConditionalCheckFailed"],
      "with one cancellation reason per item")

described = dynamo.describe_table(TableName=TABLE)["Table"]
# Approximate, as DynamoDB's: the item updated above may count twice until its versions are compacted.
check(15 <= described["ItemCount"] <= 16, "DescribeTable's approximate ItemCount (15 items)")
check(described["TableSizeBytes"] > 0, "and a TableSizeBytes")

arn = described["LatestStreamArn"]
shards = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
events = []
for shard in shards:
    it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                    ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    for _ in range(100):
        page = streams.get_records(ShardIterator=it)
        events.extend(r["eventName"] for r in page["Records"])
        if not page["Records"]:
            break
        it = page["NextShardIterator"]
check(events.count("INSERT") == 15 and events.count("MODIFY") == 1, "the stream holds every change")

code, _ = error_code(dynamo.describe_table, TableName="NoSuchTable")
check(code == "ResourceNotFoundException", "a missing table is ResourceNotFoundException")
dynamo.delete_table(TableName=TABLE)
check(TABLE not in dynamo.list_tables()["TableNames"], "delete_table removes the table")
print("boto3 smoke: OK (%d checks, boto3 %s)" % (checks, boto3.__version__))
