package dev.lacuna.lsm;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;

/**
 * A file system a test steers: once {@link #hold()} is called, every force of a file whose name contains
 * the given text blocks (after {@link #awaitHeld()} sees it) until {@link #release()}, which lets a test
 * look at the store while a write waits for its fsync, without timing; {@link #failOpens} makes opening
 * files of a suffix fail (a descriptor limit, say) and {@link #failCreates} creating files of a name (a full
 * disk), until cleared.
 */
public final class ControlledVfs extends ForwardingVfs {
    private final String heldName;
    private final Semaphore entered = new Semaphore(0);
    private volatile Semaphore gate;
    private volatile String failingOpens;
    private volatile String failingCreates;

    public ControlledVfs(Vfs inner, String heldName) {
        super(inner);
        this.heldName = heldName;
    }

    /** From now on every force of a matching file blocks until {@link #releaseOne()} or {@link #release()}. */
    public void hold() {
        entered.drainPermits();
        gate = new Semaphore(0);
    }

    /** Waits until a force is blocked. */
    public void awaitHeld() throws InterruptedException {
        awaitHeld(1);
    }

    /** Waits until {@code n} forces have been held since {@link #hold()} (the released ones count). */
    public void awaitHeld(int n) throws InterruptedException {
        entered.acquire(n);
        entered.release(n);
    }

    /** Like {@link #awaitHeld()}, giving up after {@code nanos}: whether a force is held. */
    public boolean awaitHeld(long nanos) throws InterruptedException {
        if (!entered.tryAcquire(1, nanos, java.util.concurrent.TimeUnit.NANOSECONDS)) {
            return false;
        }
        entered.release(1);
        return true;
    }

    /** Lets one held force go on; later ones are still held. */
    public void releaseOne() {
        gate.release(1);
    }

    /** Lets the blocked force (and every later one) go on. */
    public void release() {
        Semaphore g = gate;
        gate = null;
        if (g != null) {
            g.release(Integer.MAX_VALUE / 2);
        }
    }

    /** Opens of files whose names end with {@code suffix} throw an IOException from now on (null: none). */
    public void failOpens(String suffix) {
        failingOpens = suffix;
    }

    /** Creating files whose names contain {@code part} throws an IOException from now on (null: none). */
    public void failCreates(String part) {
        failingCreates = part;
    }

    private Path checkCreate(Path file) throws IOException {
        String part = failingCreates;
        if (part != null && file.getFileName().toString().contains(part)) {
            throw new IOException("No space left on device (injected): " + file);
        }
        return file;
    }

    private Path checkOpen(Path file) throws IOException {
        String suffix = failingOpens;
        if (suffix != null && file.toString().endsWith(suffix)) {
            throw new IOException("Too many open files (injected): " + file);
        }
        return file;
    }

    private void gateForce(String name) throws IOException {
        Semaphore g = gate;
        if (g == null || !name.contains(heldName)) {
            return;
        }
        entered.release();
        g.acquireUninterruptibly();
    }

    @Override
    protected VfsFile wrap(VfsFile f) {
        return new ForwardingVfs.File(f) {
            @Override
            public void force() throws IOException {
                gateForce(f.name());
                super.force();
            }
        };
    }

    @Override
    public VfsFile create(Path file) throws IOException {
        return super.create(checkCreate(file));
    }

    @Override
    public VfsFile open(Path file) throws IOException {
        return super.open(checkOpen(file));
    }

    @Override
    public VfsFile openReadOnly(Path file) throws IOException {
        return super.openReadOnly(checkOpen(file));
    }
}
