package dev.lacuna.dynamodb;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.IndexDescription;
import dev.lacuna.IndexSpec;
import dev.lacuna.KeyAttribute;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.TableSizeEstimate;
import dev.lacuna.TableSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.BillingModeSummary;
import software.amazon.awssdk.services.dynamodb.model.CreateGlobalSecondaryIndexAction;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.CreateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DeleteTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveResponse;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexDescription;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexUpdate;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ListTablesRequest;
import software.amazon.awssdk.services.dynamodb.model.ListTablesResponse;
import software.amazon.awssdk.services.dynamodb.model.ListTagsOfResourceRequest;
import software.amazon.awssdk.services.dynamodb.model.ListTagsOfResourceResponse;
import software.amazon.awssdk.services.dynamodb.model.LocalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.LocalSecondaryIndexDescription;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.Tag;
import software.amazon.awssdk.services.dynamodb.model.TagResourceRequest;
import software.amazon.awssdk.services.dynamodb.model.TagResourceResponse;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveSpecification;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;
import software.amazon.awssdk.services.dynamodb.model.UntagResourceRequest;
import software.amazon.awssdk.services.dynamodb.model.UntagResourceResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveResponse;

/**
 * The table operations (CreateTable, DescribeTable, ListTables, DeleteTable, UpdateTable), their stream
 * specification, time to live and tags, between the SDK's shapes and Lacuna's {@link TableSpec}. DynamoDB's capacity settings (billing mode, throughput,
 * table class, encryption) have no meaning here and are accepted and ignored; a table reports on-demand billing.
 */
final class Tables {
    /** The size of a table just created (or gone): nothing. */
    static final TableSizeEstimate NO_SIZE = new TableSizeEstimate(dev.lacuna.SizeEstimate.EMPTY, Map.of());

    /** The ARN prefix of Lacuna's tables: a region and account that are not AWS's. */
    static final String ARN_PREFIX = "arn:aws:dynamodb:lacuna:000000000000:table/";

    private final Database db;

    Tables(Database db) {
        this.db = db;
    }

    /** The table's key schema and indexes (ResourceNotFoundException if there is none). */
    TableSpec spec(String table) {
        return db.describeTable(Errors.required(table, "tableName")).spec();
    }

    CreateTableResponse create(CreateTableRequest r) {
        String name = Errors.required(r.tableName(), "tableName");
        if (!r.hasKeySchema()) {
            throw Errors.constraint(null, "keySchema", "Member must not be null");
        }
        StreamSpecification stream = stream(r.streamSpecification(), true);
        Map<String, AttributeValue.Type> defined = definitions(r.attributeDefinitions());
        Set<String> used = new LinkedHashSet<>();
        KeyAttribute[] keys = keySchema(r.keySchema(), defined, used, "KeySchema");
        TableSpec.Builder spec = TableSpec.builder(name).partitionKey(keys[0].name(), keys[0].type());
        if (keys[1] != null) {
            spec.sortKey(keys[1].name(), keys[1].type());
        }
        for (GlobalSecondaryIndex g : r.globalSecondaryIndexes()) {
            spec.index(global(g.indexName(), g.keySchema(), g.projection(), defined, used));
        }
        for (LocalSecondaryIndex l : r.localSecondaryIndexes()) {
            KeyAttribute[] k = keySchema(l.keySchema(), defined, used, "Index KeySchema");
            if (!k[0].name().equals(keys[0].name())) {
                throw Errors.validation("One or more parameter values were invalid: Index KeySchema does not have the"
                        + " same leading hash key as table KeySchema for index: " + l.indexName() + ". index hash key: "
                        + k[0].name() + ", table hash key: " + keys[0].name());
            }
            if (k[1] == null) {
                throw Errors.validation("One or more parameter values were invalid: Index KeySchema for local index "
                        + l.indexName() + " needs a RANGE key");
            }
            IndexSpec local = IndexSpec.local(Errors.required(l.indexName(), "indexName"), k[1]);
            spec.index(project(local, l.projection()));
        }
        if (!used.containsAll(defined.keySet()) || used.size() != defined.size()) {
            throw Errors.validation("One or more parameter values were invalid: Some AttributeDefinitions are not used."
                    + " AttributeDefinitions: " + defined.keySet() + ", keys used: " + used);
        }
        if (stream != null && stream.streamEnabled()) {
            spec.streamSpecification(stream);
        }
        dev.lacuna.TableDescription created = db.createTable(spec.build());
        if (r.hasTags() && !r.tags().isEmpty()) {
            db.tagResource(name, tags(r.tags()));
        }
        return CreateTableResponse.builder().tableDescription(describe(created, NO_SIZE)).build();
    }

    DescribeTableResponse describe(DescribeTableRequest r) {
        String name = Errors.required(r.tableName(), "tableName");
        dev.lacuna.TableDescription t = db.describeTable(name);
        return DescribeTableResponse.builder().table(describe(t, size(name))).build();
    }

    ListTablesResponse list(ListTablesRequest r) {
        int limit = 100;
        if (r.limit() != null) {
            if (r.limit() < 1 || r.limit() > 100) {
                throw Errors.constraint(r.limit(), "limit", r.limit() < 1
                        ? "Member must have value greater than or equal to 1"
                        : "Member must have value less than or equal to 100");
            }
            limit = r.limit();
        }
        List<String> names = new ArrayList<>();
        String last = null;
        for (String name : db.listTables()) {
            if (r.exclusiveStartTableName() != null && name.compareTo(r.exclusiveStartTableName()) <= 0) {
                continue;
            }
            if (names.size() == limit) {
                last = names.get(names.size() - 1);
                break;
            }
            names.add(name);
        }
        return ListTablesResponse.builder().tableNames(names).lastEvaluatedTableName(last).build();
    }

    DeleteTableResponse delete(DeleteTableRequest r) {
        String name = Errors.required(r.tableName(), "tableName");
        TableSizeEstimate size = size(name); // as DynamoDB's answer: the table as it was when deleted
        dev.lacuna.TableDescription gone = db.deleteTable(name);
        return DeleteTableResponse.builder()
                .tableDescription(describe(gone, size).toBuilder().tableStatus(TableStatus.DELETING).build()).build();
    }

    /**
     * Adds and drops global indexes (added ones are backfilled online) and enables or disables the table's stream;
     * capacity settings are ignored. A stream is refused as DynamoDB refuses it: enabling one while one is enabled
     * (also to change its view type: disable it first, which makes a new stream with a new label) or disabling one
     * when none is enabled.
     */
    UpdateTableResponse update(UpdateTableRequest r) {
        String name = Errors.required(r.tableName(), "tableName");
        StreamSpecification stream = stream(r.streamSpecification(), false);
        dev.lacuna.TableDescription current = db.describeTable(name);
        TableSpec spec = current.spec();
        if (stream != null) {
            // DynamoDB's words; the engine refuses the same changes (with its own) if a concurrent update won.
            if (stream.streamEnabled() && current.streamSpecification().streamEnabled()) {
                throw Errors.validation("Table already has an enabled stream: TableName: " + name);
            }
            if (!stream.streamEnabled() && !current.streamSpecification().streamEnabled()) {
                throw Errors.validation("Table has no stream to disable: TableName: " + name);
            }
        }
        boolean indexUpdates = r.hasGlobalSecondaryIndexUpdates() && !r.globalSecondaryIndexUpdates().isEmpty();
        if (indexUpdates) {
            checkOneIndexChange(r.globalSecondaryIndexUpdates(), current);
        }
        if (!indexUpdates && stream == null) {
            return UpdateTableResponse.builder().tableDescription(describe(current, size(name))).build();
        }
        Map<String, AttributeValue.Type> defined = definitions(r.attributeDefinitions());
        Set<String> used = new LinkedHashSet<>();
        List<IndexSpec> indexes = new ArrayList<>(spec.indexes());
        for (GlobalSecondaryIndexUpdate u : r.globalSecondaryIndexUpdates()) {
            if (u.create() != null) {
                CreateGlobalSecondaryIndexAction c = u.create();
                if (spec.index(c.indexName()) != null) {
                    throw Errors.validation("One or more parameter values were invalid: Index with name: "
                            + c.indexName() + " already exists");
                }
                indexes.add(global(c.indexName(), c.keySchema(), c.projection(), defined, used));
            } else if (u.delete() != null) {
                String index = Errors.required(u.delete().indexName(), "indexName");
                if (!indexes.removeIf(i -> i.name().equals(index) && i.kind() == IndexSpec.Kind.GLOBAL)) {
                    throw new dev.lacuna.ResourceNotFoundException("Requested resource not found: Index: " + index
                            + " not found");
                }
            }
        }
        dev.lacuna.TableDescription updated = db.updateTable(new TableSpec(name, spec.partitionKey(), spec.sortKey(),
                spec.partitions(), indexes, stream));
        return UpdateTableResponse.builder().tableDescription(describe(updated, size(name))).build();
    }

    /**
     * DynamoDB's rule for online index changes: one global index created or deleted per UpdateTable call, and none
     * while another of the table's is still being created (backfilled); otherwise DynamoDB's
     * {@code LimitExceededException}, which clients retry once the index is ACTIVE. (An {@code Update} action,
     * capacity only, changes nothing here and is not counted.) Checked against the description just read: a change
     * that another UpdateTable started meanwhile is not seen, and the engine then makes both.
     */
    private static void checkOneIndexChange(List<GlobalSecondaryIndexUpdate> updates,
                                            dev.lacuna.TableDescription current) {
        long changes = updates.stream().filter(u -> u.create() != null || u.delete() != null).count();
        boolean creating = current.indexes().stream()
                .anyMatch(i -> i.status() == dev.lacuna.IndexStatus.CREATING);
        if (changes > 1 || (changes == 1 && creating)) {
            throw Errors.limitExceeded(ONE_INDEX_AT_A_TIME);
        }
    }

    /** DynamoDB's words when an UpdateTable would create or delete a second index at once. */
    static final String ONE_INDEX_AT_A_TIME = "Subscriber limit exceeded: Only 1 online index can be created or deleted"
            + " simultaneously per table";

    /** The table's approximate size ({@link Database#estimateSize}), nothing if it was deleted meanwhile. */
    private TableSizeEstimate size(String name) {
        try {
            return db.estimateSize(name);
        } catch (dev.lacuna.ResourceNotFoundException e) {
            return NO_SIZE;
        }
    }

    /**
     * Lacuna's stream specification for DynamoDB's (null if none is given), checked as DynamoDB checks it:
     * {@code StreamEnabled} is required, {@code StreamViewType} must be one of DynamoDB's four, given when the
     * stream is enabled and only then (DynamoDB words that differently for CreateTable and UpdateTable).
     */
    private static StreamSpecification stream(software.amazon.awssdk.services.dynamodb.model.StreamSpecification s,
                                              boolean creating) {
        if (s == null) {
            return null;
        }
        boolean enabled = Errors.required(s.streamEnabled(), "streamSpecification.streamEnabled");
        software.amazon.awssdk.services.dynamodb.model.StreamViewType view = Errors.enumValue(
                s.streamViewTypeAsString(), "streamSpecification.streamViewType",
                software.amazon.awssdk.services.dynamodb.model.StreamViewType.class);
        if (enabled && view == null) {
            throw Errors.validation("One or more parameter values were invalid: " + (creating
                    ? "Table is being created with a stream enabled, UpdateViewType is required"
                    : "If stream is being enabled then UpdateViewType is required"));
        }
        if (!enabled && view != null) {
            throw Errors.validation("One or more parameter values were invalid: " + (creating
                    ? "Table is being created with a stream disabled, UpdateViewType should not be specified"
                    : "If stream is being disabled, then UpdateViewType must not be specified"));
        }
        return enabled ? StreamSpecification.enabled(StreamViewType.valueOf(view.name())) : StreamSpecification.DISABLED;
    }

    UpdateTimeToLiveResponse updateTimeToLive(UpdateTimeToLiveRequest r) {
        String name = Errors.required(r.tableName(), "tableName");
        TimeToLiveSpecification s = Errors.required(r.timeToLiveSpecification(), "timeToLiveSpecification");
        Errors.required(s.enabled(), "timeToLiveSpecification.enabled");
        Errors.required(s.attributeName(), "timeToLiveSpecification.attributeName");
        db.updateTimeToLive(name, s.attributeName(), s.enabled());
        return UpdateTimeToLiveResponse.builder().timeToLiveSpecification(s).build();
    }

    DescribeTimeToLiveResponse describeTimeToLive(DescribeTimeToLiveRequest r) {
        return DescribeTimeToLiveResponse.builder()
                .timeToLiveDescription(timeToLive(db.describeTimeToLive(Errors.required(r.tableName(), "tableName"))))
                .build();
    }

    TagResourceResponse tag(TagResourceRequest r) {
        db.tagResource(tableOf(r.resourceArn()), tags(r.tags()));
        return TagResourceResponse.builder().build();
    }

    UntagResourceResponse untag(UntagResourceRequest r) {
        db.untagResource(tableOf(r.resourceArn()), r.tagKeys());
        return UntagResourceResponse.builder().build();
    }

    ListTagsOfResourceResponse listTags(ListTagsOfResourceRequest r) {
        List<Tag> tags = new ArrayList<>();
        for (dev.lacuna.Tag t : db.listTagsOfResource(tableOf(r.resourceArn()))) {
            tags.add(Tag.builder().key(t.key()).value(t.value()).build());
        }
        return ListTagsOfResourceResponse.builder().tags(tags).build();
    }

    private static List<dev.lacuna.Tag> tags(List<Tag> tags) {
        List<dev.lacuna.Tag> out = new ArrayList<>();
        for (Tag t : tags) {
            out.add(new dev.lacuna.Tag(Errors.required(t.key(), "tags.member.key"),
                    Errors.required(t.value(), "tags.member.value")));
        }
        return out;
    }

    /** The table an ARN names: Lacuna's own ARNs, or any DynamoDB table ARN (the table's name is what counts). */
    private static String tableOf(String arn) {
        Errors.required(arn, "resourceArn");
        int at = arn.indexOf(":table/");
        if (!arn.startsWith("arn:") || at < 0 || arn.indexOf('/', at + 7) >= 0) {
            throw Errors.validation("Invalid TableArn: Invalid ResourceArn provided as input " + arn);
        }
        return arn.substring(at + 7);
    }

    private static TimeToLiveDescription timeToLive(dev.lacuna.TimeToLiveDescription t) {
        return t.isEnabled()
                ? TimeToLiveDescription.builder().timeToLiveStatus(TimeToLiveStatus.ENABLED)
                        .attributeName(t.attributeName()).build()
                : TimeToLiveDescription.builder().timeToLiveStatus(TimeToLiveStatus.DISABLED).build();
    }

    private static Map<String, AttributeValue.Type> definitions(List<AttributeDefinition> definitions) {
        Map<String, AttributeValue.Type> defined = new LinkedHashMap<>();
        for (AttributeDefinition d : definitions) {
            String name = Errors.required(d.attributeName(), "attributeDefinitions.member.attributeName");
            ScalarAttributeType t = Errors.enumValue(d.attributeTypeAsString(),
                    "attributeDefinitions.member.attributeType", ScalarAttributeType.class);
            if (t == null || t == ScalarAttributeType.UNKNOWN_TO_SDK_VERSION) {
                throw Errors.constraint(d.attributeTypeAsString(), "attributeDefinitions.member.attributeType",
                        "Member must satisfy enum value set: [B, N, S]");
            }
            if (defined.put(name, AttributeValue.Type.valueOf(t.name())) != null) {
                throw Errors.validation("Cannot have two attributes with the same name. Attribute name: " + name);
            }
        }
        return defined;
    }

    /** The HASH and RANGE (or null) attributes of a key schema, each defined; their names go into {@code used}. */
    private static KeyAttribute[] keySchema(List<KeySchemaElement> schema, Map<String, AttributeValue.Type> defined,
                                            Set<String> used, String what) {
        KeyAttribute[] keys = new KeyAttribute[2];
        if (schema.isEmpty() || schema.size() > 2) {
            throw Errors.validation("1 validation error detected: Value '" + schema + "' at 'keySchema' failed to"
                    + " satisfy constraint: Member must have length less than or equal to 2");
        }
        for (int i = 0; i < schema.size(); i++) {
            KeySchemaElement e = schema.get(i);
            KeyType type = Errors.enumValue(e.keyTypeAsString(), "keySchema.member.keyType", KeyType.class);
            if (type == null || (i == 0) != (type == KeyType.HASH)) {
                throw Errors.validation("Invalid " + what + ": The first KeySchemaElement is not a HASH key type");
            }
            String name = Errors.required(e.attributeName(), "keySchema.member.attributeName");
            AttributeValue.Type t = defined.get(name);
            if (t == null) {
                throw Errors.validation("One or more parameter values were invalid: Some index key attributes are not"
                        + " defined in AttributeDefinitions. Keys: [" + name + "], AttributeDefinitions: "
                        + defined.keySet());
            }
            used.add(name);
            keys[i] = new KeyAttribute(name, t);
        }
        return keys;
    }

    private static IndexSpec global(String name, List<KeySchemaElement> schema, Projection projection,
                                    Map<String, AttributeValue.Type> defined, Set<String> used) {
        KeyAttribute[] k = keySchema(schema, defined, used, "Index KeySchema");
        IndexSpec spec = IndexSpec.global(Errors.required(name, "indexName"), k[0], k[1]);
        return project(spec, projection);
    }

    private static IndexSpec project(IndexSpec spec, Projection projection) {
        Errors.required(projection, "projection");
        ProjectionType type = Errors.enumValue(projection.projectionTypeAsString(), "projection.projectionType",
                ProjectionType.class);
        if (type == null || type == ProjectionType.ALL) {
            if (projection.hasNonKeyAttributes()) {
                throw Errors.validation("One or more parameter values were invalid: ProjectionType is ALL, but"
                        + " NonKeyAttributes is specified");
            }
            return spec;
        }
        if (type == ProjectionType.KEYS_ONLY) {
            if (projection.hasNonKeyAttributes()) {
                throw Errors.validation("One or more parameter values were invalid: ProjectionType is KEYS_ONLY, but"
                        + " NonKeyAttributes is specified");
            }
            return spec.withProjection(IndexSpec.Projection.KEYS_ONLY);
        }
        return spec.withProjection(IndexSpec.Projection.INCLUDE, projection.nonKeyAttributes().toArray(String[]::new));
    }

    /**
     * DynamoDB's description of a Lacuna table, with {@code size}'s approximate {@code ItemCount},
     * {@code TableSizeBytes} and, per index, {@code ItemCount} and {@code IndexSizeBytes}. DynamoDB too reports
     * these approximately (it updates them about every six hours); Lacuna's are estimates from its files' and
     * memtables' counts, current but not exact ({@link Database#estimateSize}).
     */
    static TableDescription describe(dev.lacuna.TableDescription t, TableSizeEstimate size) {
        TableSpec spec = t.spec();
        Map<String, AttributeValue.Type> attributes = new LinkedHashMap<>();
        attributes.put(spec.partitionKey().name(), spec.partitionKey().type());
        if (spec.sortKey() != null) {
            attributes.put(spec.sortKey().name(), spec.sortKey().type());
        }
        List<GlobalSecondaryIndexDescription> globals = new ArrayList<>();
        List<LocalSecondaryIndexDescription> locals = new ArrayList<>();
        String arn = ARN_PREFIX + spec.name();
        for (IndexSpec i : spec.indexes()) {
            attributes.put(i.partitionKey().name(), i.partitionKey().type());
            if (i.sortKey() != null) {
                attributes.put(i.sortKey().name(), i.sortKey().type());
            }
            if (i.kind() == IndexSpec.Kind.GLOBAL) {
                IndexDescription state = t.index(i.name());
                dev.lacuna.IndexStatus status = state == null ? dev.lacuna.IndexStatus.ACTIVE : state.status();
                boolean creating = status == dev.lacuna.IndexStatus.CREATING;
                globals.add(GlobalSecondaryIndexDescription.builder().indexName(i.name()).keySchema(keySchema(i))
                        .projection(projection(i)).indexStatus(indexStatus(status))
                        .backfilling(creating ? Boolean.TRUE : null)
                        .indexSizeBytes(size.index(i.name()).sizeBytes()).itemCount(size.index(i.name()).itemCount())
                        .indexArn(arn + "/index/" + i.name()).provisionedThroughput(throughput()).build());
            } else {
                locals.add(LocalSecondaryIndexDescription.builder().indexName(i.name()).keySchema(keySchema(i))
                        .projection(projection(i)).indexSizeBytes(size.index(i.name()).sizeBytes())
                        .itemCount(size.index(i.name()).itemCount())
                        .indexArn(arn + "/index/" + i.name()).build());
            }
        }
        List<AttributeDefinition> definitions = new ArrayList<>();
        attributes.forEach((name, type) -> definitions.add(AttributeDefinition.builder().attributeName(name)
                .attributeType(type.name()).build()));
        TableDescription.Builder b = TableDescription.builder().tableName(spec.name()).tableArn(arn)
                .tableId(UUID.nameUUIDFromBytes((spec.name() + "#" + t.id() + "#" + t.createdAt())
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString())
                .tableStatus(TableStatus.ACTIVE).creationDateTime(t.createdAt())
                .attributeDefinitions(definitions).keySchema(keySchema(spec.partitionKey(), spec.sortKey()))
                .itemCount(size.table().itemCount()).tableSizeBytes(size.table().sizeBytes())
                .provisionedThroughput(throughput())
                .billingModeSummary(BillingModeSummary.builder().billingMode(BillingMode.PAY_PER_REQUEST).build())
                .deletionProtectionEnabled(false);
        if (t.streamSpecification().streamEnabled()) {
            // DynamoDB leaves StreamSpecification out when the stream is disabled (or never was enabled), and keeps
            // the latest stream's label and ARN after it is disabled.
            b.streamSpecification(software.amazon.awssdk.services.dynamodb.model.StreamSpecification.builder()
                    .streamEnabled(true).streamViewType(t.streamSpecification().streamViewType().name()).build());
        }
        if (t.latestStreamLabel() != null) {
            b.latestStreamLabel(t.latestStreamLabel()).latestStreamArn(arn + "/stream/" + t.latestStreamLabel());
        }
        if (!globals.isEmpty()) {
            b.globalSecondaryIndexes(globals);
        }
        if (!locals.isEmpty()) {
            b.localSecondaryIndexes(locals);
        }
        return b.build();
    }

    /**
     * DynamoDB's {@code IndexStatus} for Lacuna's: {@code CREATING} while the index is backfilled, {@code ACTIVE}
     * after. DynamoDB has no status for an index whose maintainer stopped on an error, and none of its four
     * (CREATING, UPDATING, DELETING, ACTIVE) would be true of it: such an index is reported as {@code FAILED}, a
     * value outside DynamoDB's set that the SDK reads as {@code UNKNOWN_TO_SDK_VERSION} (with
     * {@code indexStatusAsString()} "FAILED"), so that a client waiting for {@code ACTIVE} never takes it for a
     * working index.
     */
    static String indexStatus(dev.lacuna.IndexStatus status) {
        return switch (status) {
            case CREATING -> software.amazon.awssdk.services.dynamodb.model.IndexStatus.CREATING.toString();
            case ACTIVE -> software.amazon.awssdk.services.dynamodb.model.IndexStatus.ACTIVE.toString();
            case FAILED -> "FAILED";
        };
    }

    private static ProvisionedThroughputDescription throughput() {
        return ProvisionedThroughputDescription.builder().readCapacityUnits(0L).writeCapacityUnits(0L)
                .numberOfDecreasesToday(0L).build();
    }

    private static List<KeySchemaElement> keySchema(IndexSpec i) {
        return keySchema(i.partitionKey(), i.sortKey());
    }

    private static List<KeySchemaElement> keySchema(KeyAttribute pk, KeyAttribute sk) {
        List<KeySchemaElement> schema = new ArrayList<>();
        schema.add(KeySchemaElement.builder().attributeName(pk.name()).keyType(KeyType.HASH).build());
        if (sk != null) {
            schema.add(KeySchemaElement.builder().attributeName(sk.name()).keyType(KeyType.RANGE).build());
        }
        return schema;
    }

    private static Projection projection(IndexSpec i) {
        Projection.Builder p = Projection.builder().projectionType(i.projection().name());
        if (i.projection() == IndexSpec.Projection.INCLUDE) {
            p.nonKeyAttributes(i.nonKeyAttributes());
        }
        return p.build();
    }
}
