package dev.lacuna.lsm;

import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.sstable.BlockCache;
import dev.lacuna.sstable.Lz4;
import dev.lacuna.vfs.MemVfs;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Found by the review of the single-read recovery: Recovery.LogFeed catches anything Replay.Decoder.submit throws and stops feeding, relying on the
 * decoder to throw "the failure" at finish(). Only failures the decoder records (a batch's decode, an interrupt in
 * takeBack) are thrown there; anything else submit throws (pool.submit's RejectedExecutionException or
 * OutOfMemoryError 'unable to create native thread', an OOM growing a tree's Writes in takeBack's addAll) is
 * swallowed: the batch and every later record are dropped, finish() returns normally and the open succeeds without
 * them (acknowledged writes lost, and the log later trimmed past them).
 */
class ReplayFeedSwallowTest {
    @Test
    void shouldFailTheOpenWhenABatchNeverReachedTheDecoder() throws Exception {
        KvOptions options = KvOptions.builder().vfs(new MemVfs()).build();
        Path dir = Path.of("/db");
        Db db = new Db(options, dir, new SstableCache(options.vfs(), dir, new BlockCache(1 << 20), Lz4.fastest(), 16));
        Replay replay = new Replay(0);
        Replay.Decoder decoder = replay.new Decoder(db, new long[0]);
        // Stands in for a submit that throws without the decoder recording it (thread creation failing, an OOM).
        decoder.close();
        Class<?> feedClass = Class.forName("dev.lacuna.lsm.Recovery$LogFeed");
        Constructor<?> c = feedClass.getDeclaredConstructor(Replay.Decoder.class);
        c.setAccessible(true);
        Object feed = c.newInstance(decoder);
        Method add = feedClass.getDeclaredMethod("add", long.class, byte[].class, int.class, int.class);
        add.setAccessible(true);
        Method end = feedClass.getDeclaredMethod("end");
        end.setAccessible(true);
        for (int lsn = 1; lsn <= 300; lsn++) {
            add.invoke(feed, (long) lsn, new byte[0], 0, 0);
        }
        end.invoke(feed);
        Method finish = feedClass.getDeclaredMethod("finish");
        finish.setAccessible(true);
        assertThrows(java.lang.reflect.InvocationTargetException.class, () -> finish.invoke(feed),
                "300 records were handed to the feed, none reached the decoder, and finish() reports nothing");
    }
}
