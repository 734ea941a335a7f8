package dev.lacuna;

import dev.lacuna.storage.Durability;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.NioVfs;
import dev.lacuna.vfs.Vfs;
import java.time.Clock;
import java.util.Objects;

/**
 * Settings of a {@link Database}. Immutable; build with {@link #builder()}.
 *
 * @param vfs        the file system (real files by default; {@link dev.lacuna.vfs.MemVfs} runs a database in memory)
 * @param durability how durable a write is when it returns, unless the request names its own
 *                   ({@link Durability#SYNC} by default: it survives power loss)
 * @param clock      the time source (table creation times, transaction token lifetimes, tombstone ages)
 * @param storage    tuning of the storage engine (memtable sizes, caches, compaction); its file system,
 *                   durability, clock, key prefix and keyspace routing are set by the database
 */
public record DatabaseOptions(Vfs vfs, Durability durability, Clock clock, KvOptions storage) {
    /** Checks every setting. */
    public DatabaseOptions {
        Objects.requireNonNull(vfs, "vfs");
        Objects.requireNonNull(durability, "durability");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(storage, "storage");
    }

    /** The defaults: real files, {@code SYNC}, the system clock, default storage tuning. */
    public static DatabaseOptions defaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link DatabaseOptions}. */
    public static final class Builder {
        private Vfs vfs = new NioVfs();
        private Durability durability = Durability.SYNC;
        private Clock clock = Clock.systemUTC();
        private KvOptions storage = KvOptions.builder().build();

        private Builder() {
        }

        /** Sets {@link DatabaseOptions#vfs()}. */
        public Builder vfs(Vfs v) { vfs = v; return this; }
        /** Sets {@link DatabaseOptions#durability()}. */
        public Builder durability(Durability d) { durability = d; return this; }
        /** Sets {@link DatabaseOptions#clock()}. */
        public Builder clock(Clock c) { clock = c; return this; }
        /** Sets {@link DatabaseOptions#storage()}. */
        public Builder storage(KvOptions s) { storage = s; return this; }

        /** Validates and builds. */
        public DatabaseOptions build() {
            return new DatabaseOptions(vfs, durability, clock, storage);
        }
    }
}
