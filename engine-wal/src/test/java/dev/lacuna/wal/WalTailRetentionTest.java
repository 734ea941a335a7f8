package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;

/**
 * A tailing reader (the index updater's, a stream consumer's) keeps no array the size of the largest record it read:
 * it lives as long as its segment, 64 MiB of log. Found by a review of 77a0fd3, which kept the array a record of many
 * fragments is assembled in for every reader (1,309,728 bytes held after a 900 KB record, seen failing); only
 * recovery, whose records are lent, keeps it.
 */
class WalTailRetentionTest {
    /** The bytes of the arrays {@code o}'s own fields hold. */
    private static long heldBytes(Object o) throws ReflectiveOperationException {
        long total = 0;
        for (Field f : o.getClass().getDeclaredFields()) {
            if (f.getType() == byte[].class && !Modifier.isStatic(f.getModifiers())) {
                f.setAccessible(true);
                byte[] b = (byte[]) f.get(o);
                total += b == null ? 0 : b.length;
            }
        }
        return total;
    }

    @Test
    void shouldKeepNoRecordSizedArrayInATailingReader() throws Exception {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, WalTest.DIR, WalOptions.defaults()); WalReader reader = wal.reader(1)) {
            wal.append(WalTest.payload(1, 900_000), Durability.NONE);
            assertThat(reader.next().payload()).isEqualTo(WalTest.payload(1, 900_000));
            for (int i = 0; i < 10; i++) {
                wal.append(WalTest.payload(i, 100), Durability.NONE);
                assertThat(reader.next().payload()).isEqualTo(WalTest.payload(i, 100));
            }
            Field segmentReader = WalReader.class.getDeclaredField("reader");
            segmentReader.setAccessible(true);
            long held = heldBytes(segmentReader.get(reader));
            System.out.printf("tailing reader holds %,d bytes of arrays%n", held);
            assertThat(held).as("bytes the tailing reader's segment reader holds")
                    .isLessThanOrEqualTo(SegmentReader.MAX_READ_SIZE);
        }
    }
}
