package dev.lacuna;

import dev.lacuna.lsm.KvStore;
import dev.lacuna.lsm.Keyspace;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tables of a database: each is a keyspace of the store, its spec kept as the keyspace's descriptor
 * in the manifest, so creating or deleting a table is one durable manifest edit. Lookups are lock-free;
 * changes are serialised on this object.
 */
final class Catalog {
    private final KvStore kv;
    private final Clock clock;
    private final Map<String, TableSchema> byName = new ConcurrentHashMap<>();
    private final int tokensKeyspace;

    Catalog(KvStore kv, Clock clock) {
        this.kv = kv;
        this.clock = clock;
        int tokens = -1;
        for (Keyspace k : kv.keyspaces()) {
            TableCodec.Descriptor d = TableCodec.decode(k.id(), k.descriptor());
            if (d.kind() == TableCodec.KIND_TOKENS) {
                tokens = k.id();
            } else {
                byName.put(d.table().name(), d.table());
            }
        }
        this.tokensKeyspace = tokens >= 0 ? tokens : kv.createKeyspace(1, TableCodec.encodeTokens()).id();
    }

    /** The keyspace of transaction idempotency tokens. */
    int tokensKeyspace() {
        return tokensKeyspace;
    }

    /** The table named {@code name}; throws {@link ResourceNotFoundException} if there is none. */
    TableSchema get(String name) {
        TableSchema t = name == null ? null : byName.get(name);
        if (t == null) {
            throw new ResourceNotFoundException("Requested resource not found: Table: " + name + " not found");
        }
        return t;
    }

    /** Whether {@code table} is still the table of its name (not deleted, not deleted and created again). */
    boolean isLive(TableSchema table) {
        return byName.get(table.name()) == table;
    }

    synchronized TableDescription create(TableSpec spec) {
        if (byName.containsKey(spec.name())) {
            throw new ResourceInUseException("Table already exists: " + spec.name());
        }
        java.time.Instant now = clock.instant();
        Keyspace k = kv.createKeyspace(spec.partitions(), TableCodec.encode(spec, now));
        TableSchema t = new TableSchema(k.id(), spec, now);
        byName.put(spec.name(), t);
        return t.describe();
    }

    synchronized TableDescription update(TableSpec spec) {
        TableSchema old = get(spec.name());
        TableSpec o = old.spec();
        if (!o.partitionKey().equals(spec.partitionKey()) || !java.util.Objects.equals(o.sortKey(), spec.sortKey())
                || o.partitions() != spec.partitions()) {
            throw new ValidationException("updateTable can change a table's indexes only, not its key schema or "
                    + "partitions: table " + spec.name());
        }
        for (IndexSpec index : spec.indexes()) {
            IndexSpec before = o.index(index.name());
            if (index.kind() == IndexSpec.Kind.LOCAL && !index.equals(before)) {
                throw new ValidationException("local index " + index.name() + " can only be defined when the table is created");
            }
        }
        for (IndexSpec before : o.indexes()) {
            if (before.kind() == IndexSpec.Kind.LOCAL && spec.index(before.name()) == null) {
                throw new ValidationException("local index " + before.name() + " cannot be removed");
            }
        }
        kv.updateKeyspace(old.id(), TableCodec.encode(spec, old.createdAt()));
        TableSchema t = new TableSchema(old.id(), spec, old.createdAt());
        byName.put(spec.name(), t);
        return t.describe();
    }

    synchronized TableDescription delete(String name) {
        TableSchema t = get(name);
        byName.remove(name);
        kv.dropKeyspace(t.id());
        return new TableDescription(t.spec(), t.id(), "DELETED", t.createdAt());
    }

    List<String> names() {
        return byName.keySet().stream().sorted().toList();
    }
}
