package dev.lacuna.engine;

import dev.lacuna.BatchGetItem;
import dev.lacuna.BatchGetResult;
import dev.lacuna.GetItem;
import dev.lacuna.Item;
import dev.lacuna.TransactGet;
import dev.lacuna.ValidationException;
import dev.lacuna.expr.Placeholders;
import dev.lacuna.expr.ProjectionExpression;
import dev.lacuna.item.ItemCodec;
import dev.lacuna.item.ItemSize;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.lsm.LsmStore;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads of items by key: getItem, batchGetItem (up to {@value RequestLimits#BATCH_GET_BYTES} bytes of items, the
 * rest returned as unprocessed) and transactGetItems (every item as of one snapshot). Strongly consistent. An
 * item whose time to live has passed is not found, unless the database returns expired items.
 */
final class PointReads {
    private final LsmStore kv;
    private final Catalog catalog;
    private final Clock clock;
    private final boolean returnExpired;

    PointReads(LsmStore kv, Catalog catalog, Clock clock, boolean returnExpired) {
        this.kv = kv;
        this.catalog = catalog;
        this.clock = clock;
        this.returnExpired = returnExpired;
    }

    /** The item with {@code request}'s key in table {@code table}, projected, if it exists. */
    Optional<Item> get(String table, GetItem request) {
        TableSchema t = catalog.get(table);
        return Optional.ofNullable(catalog.whileLive(t, () -> get(t, request, null)));
    }

    BatchGetResult batchGet(BatchGetItem request) {
        List<TransactGet> gets = request.gets();
        RequestLimits.checkCount("BatchGetItem", gets.size(), BatchGetItem.MAX_KEYS);
        List<TableSchema> tables = checkDistinct(gets);
        Map<String, List<Item>> responses = new LinkedHashMap<>();
        List<TransactGet> unprocessed = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; i < gets.size(); i++) {
            TableSchema t = tables.get(i);
            TransactGet g = gets.get(i);
            if (bytes >= RequestLimits.BATCH_GET_BYTES) {
                unprocessed.add(g);
                continue;
            }
            Item item = catalog.whileLive(t, () -> get(t, g.get(), null));
            if (item != null && bytes + ItemSize.of(item) > RequestLimits.BATCH_GET_BYTES) {
                unprocessed.add(g); // it would not fit the 16 MB response
                bytes = RequestLimits.BATCH_GET_BYTES;
                continue;
            }
            if (item != null) {
                responses.computeIfAbsent(g.table(), k -> new ArrayList<>()).add(item);
                bytes += ItemSize.of(item);
            }
        }
        return new BatchGetResult(responses, unprocessed);
    }

    List<Optional<Item>> transactGet(List<TransactGet> gets) {
        RequestLimits.checkCount("TransactGetItems", gets.size(), RequestLimits.TRANSACTION_ITEMS);
        List<TableSchema> tables = checkDistinct(gets);
        List<Optional<Item>> out = new ArrayList<>();
        try (KvSnapshot snapshot = kv.snapshot()) {
            for (int i = 0; i < gets.size(); i++) {
                TableSchema t = tables.get(i);
                TransactGet g = gets.get(i);
                out.add(Optional.ofNullable(catalog.whileLive(t, () -> get(t, g.get(), snapshot))));
            }
        }
        return out;
    }

    /** The item with {@code request}'s key, projected, or null; read at {@code snapshot} if given. */
    private Item get(TableSchema table, GetItem request, KvSnapshot snapshot) {
        Placeholders placeholders = Placeholders.of(request.names(), request.values());
        ProjectionExpression projection = request.projection() == null ? null
                : ProjectionExpression.parse(request.projection(), placeholders);
        placeholders.requireAllUsed();
        byte[] key = table.encode(table.check(request.key()));
        byte[] value = snapshot == null ? kv.get(key) : kv.get(key, snapshot);
        if (value == null) {
            return null;
        }
        Item item = ItemCodec.decode(value);
        String ttl = table.settings().ttlAttribute();
        if (ttl != null && !returnExpired && TimeToLive.expiry(ttl, clock.instant()).expired(item)) {
            return null; // expired, not yet swept
        }
        return projection == null ? item : Item.of(projection.project(item.attributes()));
    }

    private List<TableSchema> checkDistinct(List<TransactGet> gets) {
        List<TableSchema> tables = new ArrayList<>();
        Set<ByteBuffer> seen = new HashSet<>();
        for (TransactGet g : gets) {
            TableSchema t = catalog.get(g.table());
            if (!seen.add(ByteBuffer.wrap(t.encode(t.check(g.get().key()))))) {
                throw new ValidationException("Provided list of item keys contains duplicates");
            }
            tables.add(t);
        }
        return tables;
    }
}
