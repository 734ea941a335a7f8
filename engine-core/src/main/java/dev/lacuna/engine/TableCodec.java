package dev.lacuna.engine;

import dev.lacuna.AttributeValue;
import dev.lacuna.IndexSpec;
import dev.lacuna.KeyAttribute;
import dev.lacuna.TableSpec;
import dev.lacuna.storage.CorruptionException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The descriptor a keyspace carries in the manifest: what the keyspace is (a table, or the database's
 * own idempotency-token keyspace) and, for a table, its spec, its index keyspaces and its settings (time to
 * live, tags, change stream). Layout in {@code FORMAT.md} beside this class ("Keyspace descriptor", version
 * {@value #VERSION}); versions 1 to 4 are still read (1 and 2: a table without time to live or tags; 1 to 3:
 * without a stream; 4: a disabled stream without its view type).
 */
public final class TableCodec {
    static final int VERSION = 5;
    static final int KIND_INDEX = 3;
    static final int KIND_TABLE = 1;
    static final int KIND_TOKENS = 2;

    /** The view-type byte of a table that never had a stream (or, before version 5, of any disabled stream). */
    private static final int NO_VIEW = 0xFF;

    private TableCodec() {
    }

    /** A decoded descriptor: its kind and, for a table, the schema. */
    record Descriptor(int kind, TableSchema table) {
    }

    static byte[] encodeTokens() {
        return new byte[] {VERSION, KIND_TOKENS};
    }

    /** The descriptor of an index keyspace: which table and index it belongs to (for tools and clean-up). */
    static byte[] encodeIndex(String table, String index) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeByte(KIND_INDEX);
            out.writeUTF(table);
            out.writeUTF(index);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static byte[] encode(TableSpec spec, Instant createdAt, List<IndexRef> refs, TableSettings settings) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeByte(KIND_TABLE);
            out.writeUTF(spec.name());
            writeKey(out, spec.partitionKey());
            writeKey(out, spec.sortKey());
            out.writeInt(spec.partitions());
            out.writeLong(createdAt.toEpochMilli());
            out.writeShort(spec.indexes().size());
            for (IndexSpec index : spec.indexes()) {
                out.writeUTF(index.name());
                out.writeByte(index.kind().ordinal());
                writeKey(out, index.partitionKey());
                writeKey(out, index.sortKey());
                out.writeByte(index.projection().ordinal());
                out.writeShort(index.nonKeyAttributes().size());
                for (String a : index.nonKeyAttributes()) {
                    out.writeUTF(a);
                }
                out.writeInt(index.partitions());
                IndexRef ref = refs.stream().filter(r -> r.name().equals(index.name())).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("no keyspace for index " + index.name()));
                out.writeInt(ref.keyspace());
                out.writeBoolean(ref.creating());
            }
            out.writeBoolean(settings.ttlAttribute() != null);
            if (settings.ttlAttribute() != null) {
                out.writeUTF(settings.ttlAttribute());
            }
            out.writeShort(settings.tags().size());
            for (Map.Entry<String, String> tag : settings.tags().entrySet()) {
                out.writeUTF(tag.getKey());
                out.writeUTF(tag.getValue());
            }
            StreamState stream = settings.stream();
            out.writeByte(stream.enabled() ? 1 : 0);
            out.writeByte(stream.viewType() != null ? stream.viewType().ordinal() : NO_VIEW);
            out.writeLong(stream.labelMillis());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // cannot happen in memory
        }
        return bytes.toByteArray();
    }

    private static void writeKey(DataOutputStream out, KeyAttribute key) throws IOException {
        if (key == null) {
            out.writeByte(0);
            return;
        }
        out.writeByte(1 + key.type().ordinal());
        out.writeUTF(key.name());
    }

    /**
     * What the descriptor of keyspace {@code id} says, in one line, for tools ({@code lacuna inspect manifest}):
     * {@code table Tickets (pk S, 4 partitions; index GSI1 global in keyspace 3; ttl expiresAt; 2 tags)},
     * {@code index GSI1 of Tickets}, {@code idempotency tokens}.
     *
     * @throws CorruptionException if the bytes are not a descriptor this version reads
     */
    public static String describe(int id, byte[] bytes) {
        Descriptor d = decode(id, bytes);
        if (d.kind() == KIND_TOKENS) {
            return "idempotency tokens";
        }
        if (d.kind() == KIND_INDEX) {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 2, bytes.length - 2))) {
                String table = in.readUTF();
                return "index " + in.readUTF() + " of " + table;
            } catch (IOException e) {
                throw corrupt(id, "malformed descriptor: " + e); // decode read the same bytes: cannot happen
            }
        }
        TableSchema t = d.table();
        TableSpec spec = t.spec();
        StringBuilder s = new StringBuilder("table ").append(spec.name()).append(" (")
                .append(spec.partitionKey().name()).append(' ').append(spec.partitionKey().type());
        if (spec.sortKey() != null) {
            s.append(", ").append(spec.sortKey().name()).append(' ').append(spec.sortKey().type());
        }
        s.append("; ").append(spec.partitions()).append(" partitions");
        for (IndexRef ref : t.indexRefs()) {
            s.append("; index ").append(ref.name()).append(' ')
                    .append(spec.index(ref.name()).kind().name().toLowerCase(java.util.Locale.ROOT))
                    .append(" in keyspace ").append(ref.keyspace()).append(ref.creating() ? " (being built)" : "");
        }
        if (t.settings().ttlAttribute() != null) {
            s.append("; time to live ").append(t.settings().ttlAttribute());
        }
        if (!t.settings().tags().isEmpty()) {
            s.append("; ").append(t.settings().tags().size()).append(" tags");
        }
        StreamState stream = t.settings().stream();
        if (stream.enabled()) {
            s.append("; stream ").append(stream.viewType()).append(" label ").append(stream.labelMillis());
        }
        return s.append(')').toString();
    }

    /**
     * Decodes a descriptor of keyspace {@code id}.
     *
     * @throws CorruptionException naming the manifest if the bytes are not a descriptor this version writes
     */
    static Descriptor decode(int id, byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int version = in.readUnsignedByte();
            if (version < 1 || version > VERSION) {
                throw corrupt(id, "unsupported descriptor version " + version);
            }
            int kind = in.readUnsignedByte();
            if (kind == KIND_TOKENS || kind == KIND_INDEX) {
                if (kind == KIND_INDEX) {
                    in.readUTF(); // table
                    in.readUTF(); // index
                }
                if (in.available() != 0) {
                    throw corrupt(id, in.available() + " bytes after the descriptor");
                }
                return new Descriptor(kind, null);
            }
            if (kind != KIND_TABLE) {
                throw corrupt(id, "unknown keyspace kind " + kind);
            }
            String name = in.readUTF();
            KeyAttribute pk = readKey(in);
            KeyAttribute sk = readKey(in);
            int partitions = in.readInt();
            Instant createdAt = Instant.ofEpochMilli(in.readLong());
            int count = in.readUnsignedShort();
            List<IndexSpec> indexes = new ArrayList<>();
            List<IndexRef> refs = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String indexName = in.readUTF();
                IndexSpec.Kind indexKind = IndexSpec.Kind.values()[in.readUnsignedByte()];
                KeyAttribute ipk = readKey(in);
                KeyAttribute isk = readKey(in);
                IndexSpec.Projection projection = IndexSpec.Projection.values()[in.readUnsignedByte()];
                int n = in.readUnsignedShort();
                List<String> include = new ArrayList<>();
                for (int j = 0; j < n; j++) {
                    include.add(in.readUTF());
                }
                indexes.add(new IndexSpec(indexName, indexKind, ipk, isk, projection, include, in.readInt()));
                if (version >= 2) {
                    refs.add(new IndexRef(indexName, in.readInt(), in.readBoolean()));
                } else {
                    throw corrupt(id, "a version 1 descriptor has indexes without keyspaces");
                }
            }
            TableSettings settings = version >= 3 ? readSettings(in) : TableSettings.NONE;
            if (version >= 4) {
                settings = settings.withStream(readStream(in, version));
            }
            if (in.available() != 0) {
                throw corrupt(id, in.available() + " bytes after the descriptor");
            }
            return new Descriptor(kind, new TableSchema(id, new TableSpec(name, pk, sk, partitions, indexes), createdAt,
                    refs, settings, List.of()));
        } catch (IOException | RuntimeException e) {
            if (e instanceof CorruptionException c) {
                throw c;
            }
            throw corrupt(id, "malformed descriptor: " + e);
        }
    }

    /** Time to live and tags (version 3 on). */
    private static TableSettings readSettings(DataInputStream in) throws IOException {
        int ttl = in.readUnsignedByte();
        if (ttl > 1) {
            throw new IOException("time-to-live flag " + ttl);
        }
        String ttlAttribute = ttl == 1 ? in.readUTF() : null;
        int count = in.readUnsignedShort();
        Map<String, String> tags = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            String key = in.readUTF();
            if (tags.put(key, in.readUTF()) != null) {
                throw new IOException("tag " + key + " twice");
            }
        }
        return new TableSettings(ttlAttribute, new TreeMap<>(tags), StreamState.NONE);
    }

    /**
     * The change stream (version 4 on). From version 5 a disabled stream keeps the view type it had, which
     * DescribeStream still reports; version 4 wrote none for it.
     */
    private static StreamState readStream(DataInputStream in, int version) throws IOException {
        int enabled = in.readUnsignedByte();
        int view = in.readUnsignedByte();
        long label = in.readLong();
        if (enabled > 1) {
            throw new IOException("stream flag " + enabled);
        }
        if (view != NO_VIEW && view >= dev.lacuna.StreamViewType.values().length) {
            throw new IOException("stream view type " + view);
        }
        if (enabled == 1 && view == NO_VIEW) {
            throw new IOException("an enabled stream without a view type");
        }
        if (enabled == 0 && view != NO_VIEW && (version < 5 || label == 0)) {
            throw new IOException("stream view type " + view + " on a disabled stream"
                    + (version < 5 ? " (version " + version + ")" : " of a table that never had one"));
        }
        if (label < 0 || (enabled == 1 && label == 0)) {
            throw new IOException("stream label " + label);
        }
        return new StreamState(enabled == 1, view == NO_VIEW ? null : dev.lacuna.StreamViewType.values()[view], label);
    }

    private static KeyAttribute readKey(DataInputStream in) throws IOException {
        int type = in.readUnsignedByte();
        if (type == 0) {
            return null;
        }
        return new KeyAttribute(in.readUTF(), AttributeValue.Type.values()[type - 1]);
    }

    private static CorruptionException corrupt(int id, String what) {
        return new CorruptionException("MANIFEST", 0, "keyspace " + id + ": " + what);
    }
}
