package dev.lacuna.vfs.testing;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * For tests of what a store does when a file system call runs code of the caller's (a hook calling {@code close()},
 * say): once {@link #arm armed}, runs a hook once, in the first file open, read or close made on the named thread
 * whose stack matches. Everything else goes to the file system it wraps.
 */
public final class ThreadHookVfs extends ForwardingVfs {
    private final String thread;
    private final AtomicBoolean armed = new AtomicBoolean();
    private volatile Predicate<StackTraceElement[]> where = s -> true;
    private volatile Runnable hook = () -> { };

    /** Wraps {@code inner}; hooks run only on threads named {@code thread}. */
    public ThreadHookVfs(Vfs inner, String thread) {
        super(inner);
        this.thread = thread;
    }

    /** Runs {@code hook} once, in the next file call on the thread whose stack {@code where} accepts. */
    public void arm(Predicate<StackTraceElement[]> where, Runnable hook) {
        this.where = where;
        this.hook = hook;
        armed.set(true);
    }

    /** A stack with a frame of method {@code method} of a class whose name ends with {@code cls}. */
    public static Predicate<StackTraceElement[]> in(String cls, String method) {
        return s -> Arrays.stream(s).anyMatch(f -> f.getClassName().endsWith(cls) && f.getMethodName().equals(method));
    }

    /** Whether {@code t} is blocked on a monitor inside method {@code method} of a class named ending {@code cls}. */
    public static boolean blockedIn(Thread t, String cls, String method) {
        return t != null && t.getState() == Thread.State.BLOCKED && in(cls, method).test(t.getStackTrace());
    }

    private void maybeRun() {
        if (Thread.currentThread().getName().equals(thread) && armed.get()
                && where.test(Thread.currentThread().getStackTrace()) && armed.compareAndSet(true, false)) {
            hook.run();
        }
    }

    @Override
    public VfsFile open(Path file) throws IOException {
        maybeRun();
        return super.open(file);
    }

    @Override
    public VfsFile openReadOnly(Path file) throws IOException {
        maybeRun();
        return super.openReadOnly(file);
    }

    @Override
    protected VfsFile wrap(VfsFile file) {
        return new ForwardingVfs.File(file) {
            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                maybeRun();
                return super.read(dst, position);
            }

            @Override
            public void close() throws IOException {
                maybeRun();
                super.close();
            }
        };
    }
}
