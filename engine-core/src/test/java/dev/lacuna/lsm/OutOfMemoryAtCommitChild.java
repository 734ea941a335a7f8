package dev.lacuna.lsm;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Run in a child JVM with a small heap by {@link OutOfMemoryAtCommitTest}: writes a batch of a small put and a put
 * whose value takes {@code args[2]} percent of the heap, so that its copies run the heap out somewhere in the commit,
 * then reports on standard output what the caller was told and what a read then sees; the test reopens the
 * store itself, with its own larger heap.
 * {@code args[1]}: {@code puts} (the parallel path of puts) or {@code delete} (the batch also deletes a key: the serial
 * path).
 */
public final class OutOfMemoryAtCommitChild {
    private OutOfMemoryAtCommitChild() {
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        boolean withDelete = args[1].equals("delete");
        int percent = Integer.parseInt(args[2]);
        KvOptions options = KvOptions.builder().durability(Durability.SYNC).build();
        try (LsmStore kv = LsmStore.open(dir, options)) {
            kv.put(b("gone"), b("1"));
            byte[] big = new byte[(int) (Runtime.getRuntime().maxMemory() / 100 * percent)];
            ThreadLocalRandom.current().nextBytes(big); // incompressible
            WriteBatch batch = new WriteBatch().put(b("small"), b("1")).put(b("big"), big);
            if (withDelete) {
                batch.delete(b("gone"));
            }
            big = null;
            String told;
            try {
                kv.write(batch, Durability.SYNC);
                told = "acknowledged";
            } catch (OutOfMemoryError e) {
                told = "OutOfMemoryError at " + where(e);
            }
            batch = null;
            System.out.println("told " + told);
            System.out.println("before " + seen(kv));
        }
    }

    /** The first frame of Lacuna's code in {@code e}'s stack: where the heap ran out. */
    private static String where(Throwable e) {
        for (StackTraceElement frame : e.getStackTrace()) {
            if (frame.getClassName().startsWith("dev.lacuna.")) {
                return frame.getClassName() + "." + frame.getMethodName();
            }
        }
        return "?";
    }

    private static String seen(LsmStore kv) {
        return "small=" + (kv.get(b("small")) != null) + " big=" + (kv.get(b("big")) != null) + " gone="
                + (kv.get(b("gone")) == null);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
