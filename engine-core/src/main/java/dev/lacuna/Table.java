package dev.lacuna;

import java.util.Optional;

/**
 * A handle on one table of a {@link Database}: the item operations, without naming the table each time.
 * Cheap; thread-safe. If the table is deleted, operations through the handle throw
 * {@link ResourceNotFoundException} (also if a table of the same name is created again: get a new handle).
 */
public final class Table {
    private final Database db;
    private final String name;

    Table(Database db, String name) {
        this.db = db;
        this.name = name;
    }

    /** The table's name. */
    public String name() {
        return name;
    }

    /** The table's description. */
    public TableDescription describe() {
        return db.describeTable(name);
    }

    /** See {@link Database#streamConsumer}. */
    public StreamConsumer streamConsumer(String consumerName) {
        return db.streamConsumer(name, consumerName);
    }

    /** See {@link Database#getItem}. */
    public Optional<Item> getItem(GetItem request) {
        return db.getItem(name, request);
    }

    /** The item with primary key {@code key}, if it exists. */
    public Optional<Item> getItem(Key key) {
        return db.getItem(name, new GetItem(key));
    }

    /** See {@link Database#putItem}. */
    public Optional<Item> putItem(PutItem request) {
        return db.putItem(name, request);
    }

    /** Creates or replaces {@code item}. */
    public void putItem(Item item) {
        db.putItem(name, new PutItem(item));
    }

    /** See {@link Database#updateItem}. */
    public Optional<Item> updateItem(UpdateItem request) {
        return db.updateItem(name, request);
    }

    /** See {@link Database#deleteItem}. */
    public Optional<Item> deleteItem(DeleteItem request) {
        return db.deleteItem(name, request);
    }

    /** Deletes the item with primary key {@code key} (nothing happens if there is none). */
    public void deleteItem(Key key) {
        db.deleteItem(name, new DeleteItem(key));
    }

    /** See {@link Database#query}. */
    public Page query(Query request) {
        return db.query(name, request);
    }

    /** See {@link Database#scan}. */
    public Page scan(Scan request) {
        return db.scan(name, request);
    }

    /**
     * Every page of {@code request}, read lazily one at a time ({@link PageIterable}; its {@code items()} are
     * every item): no {@code lastEvaluatedKey} loop. The request is copied; it is not changed.
     */
    public PageIterable queryPaginator(Query request) {
        return db.queryPaginator(name, request);
    }

    /**
     * Every page of {@code request}, read lazily one at a time ({@link PageIterable}; its {@code items()} are
     * every item): no {@code lastEvaluatedKey} loop. The request is copied; it is not changed.
     */
    public PageIterable scanPaginator(Scan request) {
        return db.scanPaginator(name, request);
    }
}
