package dev.lacuna.base;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A map from attribute names to values whose every name has already been checked the way
 * {@code dev.lacuna.Item.of} checks a caller's names (non-empty, well-formed Unicode, at most 65,535 UTF-8
 * bytes) and that no one else holds: {@code Item.of} takes such a map as it is, without copying it and
 * checking every name again. Only the item decoder makes them; the package is not exported. A query page
 * decodes every item it returns, and the copy was a tenth of a queue read.
 *
 * <p>Two arrays in insertion order rather than a {@code LinkedHashMap}: an item has a handful of attributes,
 * and the hash table, its resize and a node per attribute were a fifth of decoding one (JFR, 40-ticket page).
 * Up to {@value #LINEAR} names are found by comparing each; past that an open-addressing index of the
 * positions is kept, so a large item (DynamoDB allows 400 KB of them) stays linear to build. Equality and hash
 * are {@link AbstractMap}'s, so it equals any map of the same entries. The decoder fills it once; after
 * that it is only read (the item holds it frozen: {@link #freeze}), so it is safe to share between threads once
 * published as an item's final field.
 *
 * <p>A value may be left encoded ({@link #putNextDeferred}) and made when it is first read: a query page decodes
 * every item it returns, and its reader mostly looks at a few attributes of each. The bytes were checked when
 * the item was decoded, so making the value cannot fail. That first read writes the value into its slot, the
 * one write after the map is published: two threads reading it at once each make an equal, immutable value
 * and either may be kept, and a thread that sees a value sees it whole (its fields are final).
 *
 * @param <V> the attribute value type ({@code dev.lacuna.AttributeValue}; generic so that this base package
 *            does not depend on the API package)
 */
public final class CheckedNames<V> extends AbstractMap<String, V> {
    /** Up to this many names, a look-up compares each; past it, an index is kept. */
    static final int LINEAR = 8;

    private String[] names;
    /** Each name's hash: a look-up compares these before any name (a decoded name's hash is cached in it). */
    private int[] hashes;
    private Object[] values;
    private int size;
    /** Position + 1 of each name by its hash, 0 for an empty slot; null while there are at most LINEAR names. */
    private int[] index;
    /**
     * Whether {@link #names}, {@link #hashes} and {@link #index} are shared with other maps of the same names
     * ({@link #CheckedNames(Shape)}, {@link #shareNames}): they are then never written, and a put copies them first.
     */
    private boolean namesShared;
    /** Whether the map was handed to its item ({@link #freeze}): every change then throws. */
    private boolean frozen;
    /** Makes the values left encoded, or null if none is. */
    private Deferred<V> decoder;
    /** The encoded item the values left encoded are in, or null if none is. */
    private byte[] source;
    /** Offset in {@link #source} of each value left encoded (its slot in {@link #values} is null). */
    private int[] deferred;

    /** An empty map sized for {@code expected} attributes; the caller checks each name it puts. */
    public CheckedNames(int expected) {
        int capacity = Math.max(1, expected);
        names = new String[capacity];
        hashes = new int[capacity];
        values = new Object[capacity];
    }

    /**
     * Sets {@code name} to {@code value}: replaced in place if present (its old value returned), otherwise
     * added last (null returned).
     */
    @Override
    public V put(String name, V value) {
        requireOpen();
        if (namesShared) {
            unshare();
        }
        int h = name.hashCode();
        int at = find(name, h);
        if (at >= 0) {
            V old = value(at);
            values[at] = value;
            return old;
        }
        if (size == names.length) {
            names = Arrays.copyOf(names, size * 2);
            hashes = Arrays.copyOf(hashes, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        names[size] = name;
        hashes[size] = h;
        values[size] = value;
        size++;
        if (index != null) {
            if (size * 2 > index.length) {
                rebuildIndex();
            } else {
                insert(size - 1);
            }
        } else if (size > LINEAR) {
            rebuildIndex();
        }
        return null;
    }

    /**
     * The names of this map, to be given to other maps of exactly these names ({@link #CheckedNames(Shape)}): the
     * items of a query page mostly have the same names in the same order, and need not each find, hash and
     * store them again. This map's names are not written again (a later put copies them first).
     */
    public Shape shareNames() {
        namesShared = true;
        return new Shape(names, hashes, index, size);
    }

    /**
     * An empty map that takes the names of {@code shape}, which {@link #putNext} then fills in order: the
     * caller checks that the {@code i}-th name it puts is the shape's {@code i}-th (distinct, as the names of
     * any map are), and calls {@link #leaveShape} before the first one that is not.
     */
    public CheckedNames(Shape shape) {
        names = shape.names;
        hashes = shape.hashes;
        index = shape.index;
        values = new Object[Math.max(1, shape.size)];
        namesShared = true;
    }

    /** Sets the value of the next name of the adopted shape ({@link #CheckedNames(Shape)}). */
    public void putNext(V value) {
        requireOpen();
        values[size++] = value;
    }

    /**
     * Leaves the value of the next name of the adopted shape encoded at {@code source[offset]}: {@code decoder}
     * makes it when it is first read. The caller has checked those bytes, so decoding them cannot fail, and no
     * one changes them. Every value left encoded in one map is in the same {@code source}.
     */
    public void putNextDeferred(Deferred<V> decoder, byte[] source, int offset) {
        requireOpen();
        if (deferred == null) {
            deferred = new int[values.length];
            this.decoder = decoder;
            this.source = source;
        } else if (decoder != this.decoder || source != this.source) {
            throw new IllegalArgumentException("every value left encoded in one map is in one source, one decoder");
        }
        deferred[size++] = offset;
    }

    /**
     * Makes a value left encoded ({@link #putNextDeferred}) from its bytes, which were checked when they were put.
     *
     * @param <V> the value type
     */
    @FunctionalInterface
    public interface Deferred<V> {
        /** The value encoded at {@code source[offset]}. */
        V decode(byte[] source, int offset);
    }

    /** Leaves the adopted shape: the names put so far stay, and the next ones are {@link #put} as usual. */
    public void leaveShape() {
        requireOpen();
        unshare();
    }

    /**
     * Makes this map unmodifiable, as {@code Collections.unmodifiableMap} would make a view of it, and returns it:
     * an item holds its decoded map itself, with no wrapper to allocate per item and to pass through per read.
     * Every method that could change the map throws {@link UnsupportedOperationException} from now on.
     */
    public CheckedNames<V> freeze() {
        frozen = true;
        return this;
    }

    private void requireOpen() {
        if (frozen) {
            throw new UnsupportedOperationException("an item's attributes cannot be changed");
        }
    }

    @Override
    public V remove(Object key) {
        requireOpen();
        return super.remove(key);
    }

    @Override
    public void clear() {
        requireOpen();
        super.clear();
    }

    @Override
    public void putAll(java.util.Map<? extends String, ? extends V> m) {
        requireOpen();
        super.putAll(m);
    }

    @Override
    public V putIfAbsent(String key, V value) {
        requireOpen();
        return super.putIfAbsent(key, value);
    }

    @Override
    public boolean remove(Object key, Object value) {
        requireOpen();
        return super.remove(key, value);
    }

    @Override
    public boolean replace(String key, V oldValue, V newValue) {
        requireOpen();
        return super.replace(key, oldValue, newValue);
    }

    @Override
    public V replace(String key, V value) {
        requireOpen();
        return super.replace(key, value);
    }

    @Override
    public void replaceAll(java.util.function.BiFunction<? super String, ? super V, ? extends V> function) {
        requireOpen();
        super.replaceAll(function);
    }

    @Override
    public V computeIfAbsent(String key, java.util.function.Function<? super String, ? extends V> function) {
        requireOpen();
        return super.computeIfAbsent(key, function);
    }

    @Override
    public V computeIfPresent(String key,
                              java.util.function.BiFunction<? super String, ? super V, ? extends V> function) {
        requireOpen();
        return super.computeIfPresent(key, function);
    }

    @Override
    public V compute(String key, java.util.function.BiFunction<? super String, ? super V, ? extends V> function) {
        requireOpen();
        return super.compute(key, function);
    }

    @Override
    public V merge(String key, V value,
                   java.util.function.BiFunction<? super V, ? super V, ? extends V> function) {
        requireOpen();
        return super.merge(key, value, function);
    }

    private void unshare() {
        int capacity = Math.max(values.length, 1);
        names = Arrays.copyOf(names, capacity);
        hashes = Arrays.copyOf(hashes, capacity);
        Arrays.fill(names, size, capacity, null);
        index = null;
        namesShared = false;
        if (size > LINEAR) {
            rebuildIndex();
        }
    }

    /**
     * The names of a map, in order, with their hashes and index: handed from one map to the next of the same
     * names ({@link #shareNames}, {@link #CheckedNames(Shape)}). Immutable: no map writes a shared array.
     */
    public static final class Shape {
        private final String[] names;
        private final int[] hashes;
        private final int[] index;
        private final int size;

        private Shape(String[] names, int[] hashes, int[] index, int size) {
            this.names = names;
            this.hashes = hashes;
            this.index = index;
            this.size = size;
        }

        /** How many names. */
        public int size() {
            return size;
        }

        /** The {@code i}-th name, {@code 0 <= i < size()}. */
        public String name(int i) {
            return names[i];
        }
    }

    @Override
    public V get(Object key) {
        int at = key instanceof String name ? find(name, name.hashCode()) : -1;
        return at < 0 ? null : value(at);
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof String name && find(name, name.hashCode()) >= 0;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Set<Entry<String, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<String, V>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < size;
                    }

                    @Override
                    public Entry<String, V> next() {
                        if (next >= size) {
                            throw new NoSuchElementException();
                        }
                        int at = next++;
                        return new SimpleImmutableEntry<>(names[at], value(at));
                    }
                };
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    @SuppressWarnings("unchecked")
    private V value(int at) {
        Object v = values[at];
        return (V) (v != null ? v : decodeDeferred(at));
    }

    /** Makes the value left encoded at {@code at} and keeps it (see the class comment on threads). */
    private V decodeDeferred(int at) {
        V v = decoder.decode(source, deferred[at]);
        values[at] = v;
        return v;
    }

    /** The position of {@code name}, whose hash is {@code h}, or -1. */
    private int find(String name, int h) {
        if (index == null) {
            for (int i = 0; i < size; i++) {
                if (hashes[i] == h && names[i].equals(name)) {
                    return i;
                }
            }
            return -1;
        }
        int mask = index.length - 1;
        for (int slot = spread(h) & mask; ; slot = (slot + 1) & mask) {
            int p = index[slot];
            if (p == 0) {
                return -1;
            }
            if (hashes[p - 1] == h && names[p - 1].equals(name)) {
                return p - 1;
            }
        }
    }

    private void rebuildIndex() {
        index = new int[Integer.highestOneBit(Math.max(4 * LINEAR, 4 * size) - 1) << 1]; // a quarter full
        for (int i = 0; i < size; i++) {
            insert(i);
        }
    }

    private void insert(int position) {
        int mask = index.length - 1;
        int slot = spread(hashes[position]) & mask;
        while (index[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        index[slot] = position + 1;
    }

    private static int spread(int h) {
        return h ^ (h >>> 16);
    }
}
