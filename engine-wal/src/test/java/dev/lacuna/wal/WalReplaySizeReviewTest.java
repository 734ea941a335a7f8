package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Review of 88e4cae: the size the open tells, against fragments and failures, and the owner's exceptions (its rounds
 * against crashes went into WalOpenReplayTest).
 * Before the fix three failed: an owner's CorruptionException (from either callback) was taken, in the last segment,
 * for a torn tail, and the log cut after the record (durable records lost; the records callback's predates
 * 88e4cae); a segment that could not be sized failed the open that hands records over where the plain open opens;
 * and an owner's UncheckedIOException came out as the log's own I/O failure.
 */
class WalReplaySizeReviewTest {
    /** A record of many fragments, first handed over mid-segment: the size runs from its first fragment. */
    @Test
    void shouldCountFromTheFirstFragmentOfARecordSpanningBlocks() throws Exception {
        MemVfs vfs = new MemVfs();
        WalOptions options = WalOptions.defaults().withBlockSize(128).withSegmentSize(64 << 10).withPreallocate(4096);
        try (Wal wal = Wal.open(vfs, WalTest.DIR, options)) {
            wal.append(new byte[50], Durability.NONE); // LSN 1
            wal.append(filled(1_000), Durability.NONE); // LSN 2: FIRST, MIDDLE..., LAST
            wal.append(filled(10), Durability.NONE);
            wal.sync();
        }
        TreeMap<Long, Long> sizes = new TreeMap<>();
        long startOf2 = -1;
        long zeroTail = 0;
        for (String name : vfs.list(WalTest.DIR)) {
            long n = WalFormat.parseSegmentName(name);
            if (n >= 0) {
                try (VfsFile file = vfs.openReadOnly(WalTest.DIR.resolve(name))) {
                    sizes.put(n, file.size());
                    SegmentHeader header = SegmentHeader.read(file, n);
                    if (header.firstLsn() == 1) {
                        SegmentReader reader = new SegmentReader(file, header);
                        reader.skip(file.size());
                        startOf2 = reader.validEnd();
                    }
                }
            }
        }
        try (VfsFile last = vfs.openReadOnly(WalTest.DIR.resolve(WalFormat.segmentName(sizes.lastKey())))) {
            byte[] all = new byte[(int) last.size()];
            last.read(java.nio.ByteBuffer.wrap(all), 0);
            for (int i = all.length - 1; i >= 0 && all[i] == 0; i--) {
                zeroTail++;
            }
        }
        long first = sizes.firstKey();
        long expected = sizes.get(first) - startOf2 - zeroTail;
        for (long s : sizes.tailMap(first, false).values()) {
            expected += s;
        }
        List<Long> told = new ArrayList<>();
        try (Wal wal = Wal.open(vfs, WalTest.DIR, options, l -> { }, 2, told::add, r -> { })) {
            assertThat(told).containsExactly(expected);
        }
    }

    private static byte[] filled(int length) {
        byte[] b = new byte[length];
        java.util.Arrays.fill(b, (byte) 7);
        return b;
    }

    /** Fails to size segment 3. */
    private static Vfs failingSizeOfSegment3(MemVfs mem) {
        return new ForwardingVfs(mem) {
            @Override
            public long size(Path file) throws IOException {
                if (file.getFileName().toString().equals(WalFormat.segmentName(3))) {
                    throw new IOException("no size for you");
                }
                return super.size(file);
            }
        };
    }

    /**
     * An open that hands records over opens where the plain open does, with a size wanted or not: a segment that
     * cannot be sized counts as a full one (as Wal.sizes does for the plain open).
     */
    @Test
    void shouldOpenAsThePlainOpenDoesWhenASegmentCannotBeSized() throws Exception {
        MemVfs mem = new MemVfs();
        try (Wal wal = Wal.open(mem, WalTest.DIR, WalTest.SMALL)) {
            for (int i = 0; i < 100; i++) {
                wal.append(new byte[100], Durability.NONE);
            }
        }
        Vfs failing = failingSizeOfSegment3(mem);
        try (Wal wal = Wal.open(failing, WalTest.DIR, WalTest.SMALL, l -> { })) {
            assertThat(wal.lastLsn()).as("the plain open").isEqualTo(100);
        }
        List<WalRecord> handed = new ArrayList<>();
        try (Wal wal = Wal.open(failing, WalTest.DIR, WalTest.SMALL, l -> { }, 1, handed::add)) {
            assertThat(handed).as("the open that hands records over, no size wanted").hasSize(100);
        }
        List<Long> told = new ArrayList<>();
        try (Wal wal = Wal.open(failing, WalTest.DIR, WalTest.SMALL, l -> { }, 1, told::add, r -> { })) {
            assertThat(told).as("a size wanted").hasSize(1);
        }
    }

    /**
     * An owner's size consumer that throws a CorruptionException (say, its own check of the log's word) in
     * TOLERATE_TORN_TAIL mode: it must fail the open as itself, the log untouched.
     */
    @Test
    void shouldNotTakeTheSizeConsumersExceptionForDamageToTheLog() throws Exception {
        MemVfs copy = tenSyncedRecords();
        CorruptionException owners = new CorruptionException("owner", Long.MAX_VALUE, "the owner refuses");
        assertThatThrownBy(() -> Wal.open(copy, WalTest.DIR, WalTest.SMALL.withSegmentSize(64 << 10), l -> { }, 1,
                b -> {
                    throw owners;
                }, r -> { }).close()).isSameAs(owners);
        try (Wal wal = Wal.open(copy, WalTest.DIR, WalTest.SMALL.withSegmentSize(64 << 10))) {
            assertThat(wal.lastLsn()).as("records left in the log").isEqualTo(10);
        }
    }

    /** The same with the records consumer (predates 88e4cae: seen cutting the log after LSN 3). */
    @Test
    void shouldNotTakeTheRecordConsumersExceptionForDamageToTheLog() throws Exception {
        MemVfs copy = tenSyncedRecords();
        CorruptionException owners = new CorruptionException("owner", Long.MAX_VALUE, "the owner cannot decode it");
        assertThatThrownBy(() -> Wal.open(copy, WalTest.DIR, WalTest.SMALL.withSegmentSize(64 << 10), l -> { }, 1,
                r -> {
                    if (r.lsn() == 3) {
                        throw owners;
                    }
                }).close()).isSameAs(owners);
        try (Wal wal = Wal.open(copy, WalTest.DIR, WalTest.SMALL.withSegmentSize(64 << 10))) {
            assertThat(wal.lastLsn()).as("records left in the log").isEqualTo(10);
        }
    }

    private static MemVfs tenSyncedRecords() {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, WalTest.DIR, WalTest.SMALL.withSegmentSize(64 << 10))) {
            for (int i = 0; i < 10; i++) {
                wal.append(new byte[20], Durability.SYNC);
            }
        }
        return vfs.crashClone();
    }

    /** An owner's UncheckedIOException from the size consumer comes out as itself, not as the log's failure. */
    @Test
    void shouldLetTheSizeConsumersUncheckedIoExceptionThroughAsItself() {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, WalTest.DIR, WalTest.SMALL)) {
            wal.append(new byte[20], Durability.NONE);
        }
        UncheckedIOException mine = new UncheckedIOException(new IOException("owner's own"));
        assertThatThrownBy(() -> Wal.open(vfs, WalTest.DIR, WalTest.SMALL, l -> { }, 1, b -> {
            throw mine;
        }, r -> { })).isSameAs(mine).isNotInstanceOf(StorageIOException.class);
    }
}
