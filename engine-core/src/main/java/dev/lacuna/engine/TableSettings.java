package dev.lacuna.engine;

import dev.lacuna.Tag;
import dev.lacuna.TimeToLiveDescription;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a table's descriptor holds beside its spec and index keyspaces: its time-to-live attribute, its
 * tags and its change stream. Immutable; a change makes a new one, written to the manifest in one edit.
 *
 * @param ttlAttribute the attribute holding each item's expiry time, or null while time to live is disabled
 * @param tags         the table's tags by key, sorted (so descriptors and listings are deterministic)
 * @param stream       the table's change stream (or the last one it had)
 */
record TableSettings(String ttlAttribute, SortedMap<String, String> tags, StreamState stream) {
    /** A new table's: no time to live, no tags, no stream. */
    static final TableSettings NONE = new TableSettings(null, new TreeMap<>(), StreamState.NONE);

    TableSettings {
        tags = Collections.unmodifiableSortedMap(new TreeMap<>(tags));
        java.util.Objects.requireNonNull(stream, "stream");
    }

    /** Time to live and tags, no stream. */
    TableSettings(String ttlAttribute, SortedMap<String, String> tags) {
        this(ttlAttribute, tags, StreamState.NONE);
    }

    TableSettings withTags(Map<String, String> newTags) {
        return new TableSettings(ttlAttribute, new TreeMap<>(newTags), stream);
    }

    TableSettings withTtlAttribute(String attribute) {
        return new TableSettings(attribute, tags, stream);
    }

    TableSettings withStream(StreamState newStream) {
        return new TableSettings(ttlAttribute, tags, newStream);
    }

    TimeToLiveDescription timeToLive() {
        return ttlAttribute == null ? TimeToLiveDescription.DISABLED : TimeToLiveDescription.enabled(ttlAttribute);
    }

    List<Tag> tagList() {
        List<Tag> out = new ArrayList<>();
        tags.forEach((k, v) -> out.add(new Tag(k, v)));
        return out;
    }
}
