package dev.lacuna.engine;

import java.util.Set;
import java.util.HashSet;
import dev.lacuna.Select;
import dev.lacuna.AttributeValue;
import dev.lacuna.IndexSpec;
import dev.lacuna.IndexStatus;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Page;
import dev.lacuna.Query;
import dev.lacuna.ReadYourWritesTimeoutException;
import dev.lacuna.Scan;
import dev.lacuna.ValidationException;
import dev.lacuna.storage.LacunaException;
import dev.lacuna.expr.ConditionExpression;
import dev.lacuna.expr.KeyConditionExpression;
import dev.lacuna.expr.KeyTerm;
import dev.lacuna.expr.ParseCache;
import dev.lacuna.expr.Placeholders;
import dev.lacuna.expr.ProjectionExpression;
import dev.lacuna.item.ItemCodec;
import dev.lacuna.item.KeyEncoding;
import dev.lacuna.item.NameCache;
import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.lsm.LsmStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * Range reads of tables and indexes: query (one partition key's items in sort-key order, as one range of
 * the store), scan (partition by partition, segments for parallel scans), with filters, projections
 * and pages that end after {@code limit} items or {@value #PAGE_BYTES} bytes of items read.
 */
final class Queries {
    /** A page of a query or scan reads at most this many bytes of items (DynamoDB's 1 MB). */
    static final long PAGE_BYTES = 1 << 20;

    private final LsmStore kv;
    private final Clock clock;
    private final boolean returnExpired;
    /** Key conditions and filters by their text: clients query with the same few, and each parse costs. */
    private final ParseCache parses = new ParseCache();

    /**
     * @param clock         the time by which items expire
     * @param returnExpired whether pages keep items whose time to live has passed (DynamoDB's way) or drop them
     */
    Queries(LsmStore kv, Clock clock, boolean returnExpired) {
        this.kv = kv;
        this.clock = clock;
        this.returnExpired = returnExpired;
    }

    Page query(TableSchema table, Query q) {
        long started = System.nanoTime(); // a read-your-writes timeout bounds both of the index's waits together
        Target target = target(table, q);
        Placeholders placeholders = Placeholders.of(q.names(), q.values());
        KeyConditionExpression keyCondition = KeyConditionExpression.parse(q.keyCondition(), placeholders, parses);
        ConditionExpression filter = q.filter() == null ? null
                : ConditionExpression.parseFilter(q.filter(), placeholders, parses);
        ProjectionExpression projection = q.projection() == null ? null
                : ProjectionExpression.parse(q.projection(), placeholders);
        placeholders.requireAllUsed();
        boolean fetch = fetchesFromTable(target, q.select(), projection, filter);
        if (filter != null) {
            for (String name : filter.attributeNames()) {
                if (name.equals(target.pk.name()) || (target.sk != null && name.equals(target.sk.name()))) {
                    throw new ValidationException("Filter Expression can only contain non-primary key attributes: "
                            + "Primary key attribute: " + name);
                }
            }
        }
        KeyConditionExpression.KeyRange range = keyCondition.resolve(target.pk.name(),
                target.sk == null ? null : target.sk.name());
        AttributeValue pk = range.partitionValue();
        checkConditionType(target.pk, pk);
        Key.of(target.pk.name(), pk); // validates the value as a key value
        byte[] prefix = KeyEncoding.encodePartitionPrefix(target.keyspace, pk);
        byte[] lo = prefix;
        byte[] hi = prefixEnd(prefix);
        if (range.sortKeyCondition().isPresent()) {
            KeyTerm term = range.sortKeyCondition().get();
            KeyAttribute sk = target.sk;
            checkConditionType(sk, term.value());
            if (term.upperValue() != null) {
                checkConditionType(sk, term.upperValue());
            }
            if (term.operator() == KeyTerm.Operator.BEGINS_WITH) {
                if (sk.type() == AttributeValue.Type.N) {
                    throw new ValidationException("Invalid KeyConditionExpression: Incorrect operand type for operator "
                            + "or function; operator or function: begins_with, operand type: N");
                }
                byte[] p = KeyEncoding.encodeSortKeyPrefix(target.keyspace, pk, term.value());
                lo = p;
                hi = prefixEnd(p);
            } else {
                if (term.operator() == KeyTerm.Operator.BETWEEN
                        && compare(target.bound(pk, term.value()), target.bound(pk, term.upperValue())) > 0) {
                    throw new ValidationException("Invalid KeyConditionExpression: The BETWEEN operator requires upper "
                            + "bound to be greater than or equal to lower bound; lower bound operand: " + term.value()
                            + ", upper bound operand: " + term.upperValue());
                }
                if (term.lower().isPresent()) {
                    KeyTerm.Bound b = term.lower().get();
                    byte[] k = target.bound(pk, b.value());
                    lo = b.inclusive() ? k : target.pastEqual(k);
                }
                if (term.upper().isPresent()) {
                    KeyTerm.Bound b = term.upper().get();
                    byte[] k = target.bound(pk, b.value());
                    hi = b.inclusive() ? target.pastEqual(k) : k;
                }
            }
        }
        if (q.exclusiveStartKey() != null) {
            byte[] k = target.startKey(q.exclusiveStartKey(), pk, range.sortKeyCondition().orElse(null));
            if (q.forward()) {
                lo = max(lo, after(k));
            } else {
                hi = min(hi, k);
            }
        }
        if (q.consistentRead() && target.index != null && !target.index.maintainer().synchronous()) {
            throw new ValidationException("Consistent reads are not supported on global secondary indexes");
        }
        if (target.index != null && q.readYourWrites() != null) {
            awaitIndex(target.index, left(q.readYourWrites(), started));
        }
        if (hi != null && compare(lo, hi) >= 0) {
            return new PageBuilder(target, filter, projection, q.isCount(), q.limit(), null).build();
        }
        byte[] from = lo;
        byte[] to = hi;
        Supplier<Page> read = () -> {
            // Fetching items from the table: the index entries and the items are read at one snapshot.
            try (KvSnapshot snapshot = fetch ? kv.snapshot() : null;
                 KvCursor c = kv.scanPrefix(prefix, from, to, !q.forward(), snapshot)) {
                PageBuilder page = new PageBuilder(target, filter, projection, q.isCount(), q.limit(), snapshot);
                for (; c.valid() && !page.full(); c.next()) {
                    page.add(c.value()); // the key is not read: the cursor need not copy it out
                }
                page.deadEntries += c.deadEntriesSkipped();
                return page.build();
            }
        };
        return target.index == null ? read.get() : target.index.readLock().read(read);
    }

    /** What is left of {@code timeout} since {@code started} (a {@link System#nanoTime()}), never negative. */
    private static java.time.Duration left(java.time.Duration timeout, long started) {
        java.time.Duration left = timeout.minusNanos(System.nanoTime() - started);
        return left.isNegative() ? java.time.Duration.ZERO : left;
    }

    /** Waits until the index has applied every write acknowledged before now. */
    private void awaitIndex(LiveIndex index, java.time.Duration timeout) {
        long lsn = kv.lastSequence();
        try {
            if (!index.maintainer().awaitApplied(lsn, timeout)) {
                throw new ReadYourWritesTimeoutException("index " + index.spec().name() + " had not applied LSN " + lsn
                        + " after " + timeout + " (it is at " + index.maintainer().appliedLsn() + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ReadYourWritesTimeoutException("interrupted while waiting for index " + index.spec().name());
        }
    }

    /** What a query reads: the table itself, or one of its indexes. */
    private Target target(TableSchema table, Query q) {
        if (q.index() == null) {
            if (q.readYourWrites() != null) {
                throw new ValidationException("readYourWrites applies to index queries; table reads are always "
                        + "strongly consistent");
            }
            return tableTarget(table);
        }
        return indexTarget(table, q.index(), q.readYourWrites());
    }

    private static Target tableTarget(TableSchema table) {
        return new Target(table, null, table.id(), table.spec().partitionKey(), table.spec().sortKey());
    }

    private static Target indexTarget(TableSchema table, String name, java.time.Duration readYourWrites) {
        IndexSpec spec = table.spec().index(name);
        LiveIndex index = table.liveIndex(name);
        if (spec == null || index == null) {
            throw new ValidationException("The table does not have the specified index: " + name);
        }
        IndexStatus status = index.maintainer().status();
        if (status == IndexStatus.CREATING) {
            throw new ValidationException("Cannot read from backfilling global secondary index: " + name);
        }
        if (status != IndexStatus.ACTIVE) {
            Throwable failure = index.maintainer().failure();
            throw new LacunaException("index " + name + " of table " + table.name() + " is " + status
                    + (failure == null ? "" : ": " + failure.getMessage()), failure);
        }
        awaitConsistent(index, readYourWrites);
        return new Target(table, index, index.keyspace(), spec.partitionKey(), spec.sortKey());
    }

    /**
     * After a crash an index's entries are a state the table had only once the log after its checkpoint is
     * applied again ({@link dev.lacuna.index.IndexMaintainer#consistentFrom}): an eventually consistent read may
     * see an older state, never one with an entry missing that was there all along. A short wait, once per open;
     * a read-your-writes query ({@code readYourWrites} not null) waits no longer than the timeout it gave, which
     * also bounds its own wait after this one, and throws as that wait does when it passes.
     */
    private static void awaitConsistent(LiveIndex index, java.time.Duration readYourWrites) {
        long from = index.maintainer().consistentFrom();
        if (from <= 0 || index.maintainer().appliedLsn() >= from) {
            return;
        }
        try {
            java.time.Duration timeout = readYourWrites == null ? java.time.Duration.ofNanos(Long.MAX_VALUE)
                    : readYourWrites;
            if (!index.maintainer().awaitApplied(from, timeout)) {
                if (readYourWrites != null) {
                    throw new ReadYourWritesTimeoutException("index " + index.spec().name() + " had not applied the"
                            + " log it held at the open (LSN " + from + ") after " + readYourWrites + " (it is at "
                            + index.maintainer().appliedLsn() + ")");
                }
                throw new LacunaException("index " + index.spec().name() + " stopped before it had applied the log"
                        + " it held at the open (LSN " + from + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LacunaException("interrupted while index " + index.spec().name() + " applied the log it held"
                    + " at the open (LSN " + from + ")", e);
        }
    }

    /** The keyspace a query reads and how its keys are made. */
    private record Target(TableSchema table, LiveIndex index, int keyspace, KeyAttribute pk, KeyAttribute sk) {
        /** The key (table) or key prefix (index) of the entries whose sort key is {@code sortValue}. */
        byte[] bound(AttributeValue pkValue, AttributeValue sortValue) {
            Key.of(pk.name(), pkValue, sk.name(), sortValue); // validates both as key values
            return KeyEncoding.encodeKey(keyspace, pkValue, sortValue);
        }

        /** Past every entry that {@link #bound} {@code k} starts. */
        byte[] pastEqual(byte[] k) {
            return index == null ? after(k) : prefixEnd(k);
        }

        /** The encoded exclusive start key, checked against the schema and the key condition. */
        byte[] startKey(Map<String, AttributeValue> map, AttributeValue pkValue, KeyTerm sortTerm) {
            Key base = index == null ? table.keyFromMap(map, "ExclusiveStartKey")
                    : table.keyFromMap(baseKeyOf(map), "ExclusiveStartKey");
            AttributeValue startPk = index == null ? base.partitionKey() : map.get(pk.name());
            AttributeValue startSk = index == null ? base.sortKey() : sk == null ? null : map.get(sk.name());
            if (startPk == null || (sk != null && startSk == null)) {
                throw new ValidationException("The provided starting key is invalid: it must hold the index keys "
                        + pk.name() + (sk == null ? "" : ", " + sk.name()) + " and the table's key");
            }
            if (!startPk.equals(pkValue)) {
                throw new ValidationException("The provided starting key is invalid: its partition key does not match "
                        + "the query's");
            }
            if (sortTerm != null && !sortTerm.matches(startSk)) {
                throw new ValidationException("The provided starting key does not match the range key predicate");
            }
            return encodeStart(map);
        }

        /** The encoded key of an exclusive start key, checked against the schema (table's or index's and table's). */
        byte[] encodeStart(Map<String, AttributeValue> map) {
            if (index == null) {
                return table.encode(table.keyFromMap(map, "ExclusiveStartKey"));
            }
            Key base = table.keyFromMap(baseKeyOf(map), "ExclusiveStartKey");
            AttributeValue startPk = map.get(pk.name());
            AttributeValue startSk = sk == null ? null : map.get(sk.name());
            checkConditionType(pk, startPk);
            Key.of(pk.name(), startPk);
            if (sk != null) {
                checkConditionType(sk, startSk);
                Key.of(pk.name(), startPk, sk.name(), startSk);
            }
            return KeyEncoding.encodeIndexKey(keyspace, startPk, startSk, base);
        }

        /** Hash partitions of the keyspace read. */
        int partitions() {
            if (index == null || index.spec().kind() == IndexSpec.Kind.LOCAL) {
                return table.spec().partitions();
            }
            return index.spec().partitions();
        }

        /** The table's key out of an index query's start key, which must hold exactly the index's and the table's keys. */
        private Map<String, AttributeValue> baseKeyOf(Map<String, AttributeValue> map) {
            java.util.Set<String> required = new java.util.HashSet<>();
            required.add(pk.name());
            if (sk != null) {
                required.add(sk.name());
            }
            required.add(table.pkName());
            if (table.skName() != null) {
                required.add(table.skName());
            }
            if (!map.keySet().equals(required)) {
                throw new ValidationException("The provided starting key is invalid: it must hold exactly " + required
                        + ", not " + map.keySet());
            }
            Map<String, AttributeValue> base = new java.util.LinkedHashMap<>();
            base.put(table.pkName(), map.get(table.pkName()));
            if (table.skName() != null) {
                base.put(table.skName(), map.get(table.skName()));
            }
            return base;
        }

        /** What a page's last evaluated key holds for {@code item}. */
        Map<String, AttributeValue> lastKey(Item item) {
            Map<String, AttributeValue> key = new java.util.LinkedHashMap<>(
                    Key.from(item, table.pkName(), table.skName()).attributes());
            if (index != null) {
                key.put(pk.name(), item.get(pk.name()));
                if (sk != null) {
                    key.put(sk.name(), item.get(sk.name()));
                }
            }
            return key;
        }
    }

    Page scan(TableSchema table, Scan s) {
        Placeholders placeholders = Placeholders.of(s.names(), s.values());
        ConditionExpression filter = s.filter() == null ? null
                : ConditionExpression.parseFilter(s.filter(), placeholders, parses);
        ProjectionExpression projection = s.projection() == null ? null
                : ProjectionExpression.parse(s.projection(), placeholders);
        placeholders.requireAllUsed();
        Target target = s.index() == null ? tableTarget(table) : indexTarget(table, s.index(), null);
        boolean fetch = fetchesFromTable(target, s.select(), projection, filter);
        int partitions = target.partitions();
        int total = s.totalSegments();
        int segment = s.segment();
        // With no more segments than partitions, a segment is a set of whole partitions; with more, each
        // partition is shared by several segments, which split it by a hash of the partition key.
        List<Integer> parts = new ArrayList<>();
        for (int p = segment % partitions; p < partitions; p += Math.min(total, partitions)) {
            parts.add(p);
            if (total > partitions) {
                break;
            }
        }
        int shares = total > partitions ? (total - segment % partitions + partitions - 1) / partitions : 1;
        int share = total > partitions ? segment / partitions : 0;
        int first = 0;
        byte[] lowest = TableSchema.idBytes(target.keyspace);
        byte[] highest = TableSchema.idBytes(target.keyspace + 1);
        byte[] lo = lowest;
        if (s.exclusiveStartKey() != null) {
            byte[] k = target.encodeStart(s.exclusiveStartKey());
            first = parts.indexOf(kv.partitionOf(k));
            if (first < 0 || (shares > 1 && shareOf(k, shares) != share)) {
                throw new ValidationException("The provided Exclusive start key does not map to the provided Segment "
                        + "and TotalSegments values.");
            }
            lo = after(k);
        }
        byte[] from = lo;
        int start = first;
        Supplier<Page> read = () -> {
            try (KvSnapshot snapshot = fetch ? kv.snapshot() : null) {
                PageBuilder page = new PageBuilder(target, filter, projection, s.isCount(), s.limit(), snapshot);
                scanParts(target, parts, start, from, lowest, highest, shares, share, page, snapshot);
                return page.build();
            }
        };
        return target.index == null ? read.get() : target.index.readLock().read(read);
    }

    private void scanParts(Target target, List<Integer> parts, int first, byte[] lo, byte[] lowest, byte[] highest,
                           int shares, int share, PageBuilder page, KvSnapshot snapshot) {
        for (int i = first; i < parts.size() && !page.full(); i++) {
            try (KvCursor c = kv.scanPartition(target.keyspace, parts.get(i), lo, highest, false, snapshot)) {
                for (; c.valid() && !page.full(); c.next()) {
                    if (shares == 1 || shareOf(c.key(), shares) == share) {
                        page.add(c.value());
                    }
                }
                page.deadEntries += c.deadEntriesSkipped();
            }
            lo = lowest;
        }
    }

    private static int shareOf(byte[] key, int shares) {
        CRC32C crc = new CRC32C();
        crc.update(key, 0, KeyEncoding.partitionPrefixLength(key));
        return (int) (crc.getValue() % shares);
    }

    /**
     * Checks {@code select} against the target and the projection (DynamoDB's rules), and says whether each
     * item must be fetched from the table: on a local index that does not project every attribute the request
     * needs (all of them, or those its projection or filter names), as DynamoDB does.
     */
    private static boolean fetchesFromTable(Target target, Select select, ProjectionExpression projection,
                                            ConditionExpression filter) {
        if (select != null && select != Select.SPECIFIC_ATTRIBUTES && projection != null) {
            throw new ValidationException("Cannot specify the ProjectionExpression when choosing to get "
                    + (select == Select.COUNT ? "only the COUNT" : select));
        }
        if (select == Select.SPECIFIC_ATTRIBUTES && projection == null) {
            throw new ValidationException("Must specify the ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES");
        }
        if (target.index == null) {
            if (select == Select.ALL_PROJECTED_ATTRIBUTES) {
                throw new ValidationException("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName");
            }
            return false;
        }
        IndexSpec spec = target.index.spec();
        if (spec.projection() == IndexSpec.Projection.ALL) {
            return false;
        }
        if (spec.kind() == IndexSpec.Kind.GLOBAL) {
            if (select == Select.ALL_ATTRIBUTES) {
                throw new ValidationException("One or more parameter values were invalid: Select type ALL_ATTRIBUTES "
                        + "is not supported for global secondary index " + spec.name()
                        + " because its projection type is not ALL");
            }
            return false;
        }
        if (select == Select.ALL_ATTRIBUTES) {
            return true;
        }
        Set<String> projected = projectedAttributes(target.table.spec(), spec);
        return (projection != null && !projected.containsAll(projection.attributeNames()))
                || (filter != null && !projected.containsAll(filter.attributeNames()));
    }

    /** The attributes an index holds of an item: the table's and its own keys, and those it includes. */
    private static Set<String> projectedAttributes(dev.lacuna.TableSpec table, IndexSpec index) {
        Set<String> out = new HashSet<>();
        out.add(table.partitionKey().name());
        if (table.sortKey() != null) {
            out.add(table.sortKey().name());
        }
        out.add(index.partitionKey().name());
        if (index.sortKey() != null) {
            out.add(index.sortKey().name());
        }
        if (index.projection() == IndexSpec.Projection.INCLUDE) {
            out.addAll(index.nonKeyAttributes());
        }
        return out;
    }

    private static void checkConditionType(KeyAttribute key, AttributeValue value) {
        if (value.type() != key.type()) {
            throw new ValidationException("One or more parameter values were invalid: Condition parameter type does not "
                    + "match schema type: " + key.name() + " is " + key.type() + ", the condition gives " + value.type());
        }
    }

    private static byte[] sortKey(TableSchema table, AttributeValue pk, AttributeValue sk) {
        return table.encode(Key.of(table.pkName(), pk, table.skName(), sk));
    }

    /** The smallest byte string greater than {@code key}: {@code key + 0x00}. */
    static byte[] after(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    /** The smallest byte string greater than every string starting with {@code prefix}, or null if there is none. */
    static byte[] prefixEnd(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xFF) {
                byte[] end = Arrays.copyOf(prefix, i + 1);
                end[i]++;
                return end;
            }
        }
        return null;
    }

    private static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    private static byte[] max(byte[] a, byte[] b) {
        return compare(a, b) >= 0 ? a : b;
    }

    private static byte[] min(byte[] a, byte[] b) {
        return a == null ? b : compare(a, b) <= 0 ? a : b;
    }

    /** Collects one page: counts, the filter, the projection, and where it ends. */
    private final class PageBuilder {
        private final Target target;
        private final ConditionExpression filter;
        private final ProjectionExpression projection;
        private final boolean count;
        private final int limit;
        private final List<Item> items = new ArrayList<>();
        /** The page's items share their attribute names: each is decoded once. */
        private final NameCache names = new NameCache();
        private int matched;
        private int scanned;
        private long bytes;
        private Item last;
        private final KvSnapshot fetchAt;
        /** The expiry test of the table's items, or null if expired items are returned (or none expire). */
        private final TimeToLive.Expiry expiry;
        /** Whether an entry lacks the TTL attribute by its index's projection, so its item must be read. */
        private final boolean expiryFromTable;
        long deadEntries;

        /**
         * @param fetchAt if not null, each index entry's item is read whole from the table at this snapshot
         */
        PageBuilder(Target target, ConditionExpression filter, ProjectionExpression projection, boolean count,
                    int limit, KvSnapshot fetchAt) {
            this.fetchAt = fetchAt;
            this.target = target;
            this.filter = filter;
            this.projection = projection;
            this.count = count;
            this.limit = limit;
            String ttl = target.table.settings().ttlAttribute();
            this.expiry = ttl == null || returnExpired ? null : TimeToLive.expiry(ttl, clock.instant());
            this.expiryFromTable = ttl != null && target.index != null
                    && target.index.spec().projection() != IndexSpec.Projection.ALL
                    && !projectedAttributes(target.table.spec(), target.index.spec()).contains(ttl);
        }

        boolean full() {
            return (limit > 0 && scanned >= limit) || bytes >= PAGE_BYTES;
        }

        void add(byte[] value) {
            // A corrupt value is reported as <item>: building a name from the key here would cost every read.
            Item item = ItemCodec.decodePageItem(value, names);
            scanned++;
            bytes += names.lastItemSize();
            last = item;
            if (fetchAt != null) {
                item = fetch(item);
            }
            if (expiry != null && expired(item)) {
                return; // read (it counts as scanned) but hidden, as a filter would
            }
            if (filter != null && !filter.test(item.attributes())) {
                return;
            }
            matched++;
            if (!count) {
                items.add(projection == null ? item : Item.of(projection.project(item.attributes())));
            }
        }

        /** Whether the item of {@code entry} has expired, read from the table if the entry cannot tell. */
        private boolean expired(Item entry) {
            if (!expiryFromTable || fetchAt != null) {
                return expiry.expired(entry);
            }
            Key key = Key.from(entry, target.table.pkName(), target.table.skName());
            byte[] value = kv.get(target.table.encode(key));
            // An item already gone from the table is an entry the index has yet to remove: not hidden for that.
            return value != null && expiry.expired(ItemCodec.decode(value));
        }

        /** The whole item of an index entry, from the table (a local index's entries are in its item's record). */
        private Item fetch(Item entry) {
            Key key = Key.from(entry, target.table.pkName(), target.table.skName());
            byte[] value = kv.get(target.table.encode(key), fetchAt);
            return value == null ? entry : ItemCodec.decode(value);
        }

        Page build() {
            Map<String, AttributeValue> lastKey = full() && last != null ? target.lastKey(last) : null;
            return new Page(items, matched, scanned, lastKey, deadEntries);
        }
    }
}
