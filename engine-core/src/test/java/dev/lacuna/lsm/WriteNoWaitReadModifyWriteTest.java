package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvStore;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/**
 * {@code KvStore.writeNoWait}'s documented use: a caller increments a counter under its own lock, reading with
 * {@code getForUpdate}, and releases the lock before waiting for the disk, so that concurrent writers share
 * one fsync. Two increments must both count (an adversarial review found the second lost when the caller
 * read with {@code get}, which does not see a SYNC write still waiting for its fsync).
 */
class WriteNoWaitReadModifyWriteTest {
    @Test
    void shouldNotLoseAnIncrementMadeUnderTheCallersLock() {
        byte[] key = {'c'};
        ReentrantLock lock = new ReentrantLock();
        try (KvStore kv = KvStore.open(Path.of("/db"), KvOptions.builder().vfs(new MemVfs())
                .durability(Durability.SYNC).build())) {
            kv.put(key, new byte[] {0});
            lock.lock();
            long first = kv.writeNoWait(new WriteBatch().put(key, new byte[] {(byte) (kv.getForUpdate(key)[0] + 1)}),
                    Durability.SYNC);
            lock.unlock();
            // writer 1 is now in awaitDurable (not yet called here); writer 2 takes the lock
            lock.lock();
            assertThat(kv.get(key)).as("a SYNC write before its fsync").isEqualTo(new byte[] {0});
            long second = kv.writeNoWait(new WriteBatch().put(key, new byte[] {(byte) (kv.getForUpdate(key)[0] + 1)}),
                    Durability.SYNC);
            lock.unlock();
            kv.awaitDurable(first, Durability.SYNC);
            kv.awaitDurable(second, Durability.SYNC);
            assertThat(kv.get(key)).as("counter after two increments").isEqualTo(new byte[] {2});
        }
    }
}
