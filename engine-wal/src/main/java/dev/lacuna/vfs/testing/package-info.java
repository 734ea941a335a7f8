/**
 * Crash testing of code built on Lacuna: a file system broken on purpose ({@link dev.lacuna.vfs.testing.BrokenVfs},
 * over {@link dev.lacuna.vfs.MemVfs} for power loss, or over any file system for the breakages that act in the
 * process), the moment a power loss is taken ({@link dev.lacuna.vfs.testing.CrashMoment}), the cycle loop
 * ({@link dev.lacuna.vfs.testing.CrashCycles}), the run that checks a crash test catches each breakage
 * ({@link dev.lacuna.vfs.testing.BreakageRuns}) and the closing of what a crash left behind
 * ({@link dev.lacuna.vfs.testing.BackgroundCloser}); and two helpers for tests that must land somewhere exact: a
 * file system holding the log's group-commit fsyncs ({@link dev.lacuna.vfs.testing.HeldLogForce}), a clock
 * the test moves ({@link dev.lacuna.vfs.testing.ManualClock}); and for tests of calls that might hang, a file system
 * that runs a hook in a given thread's file call ({@link dev.lacuna.vfs.testing.ThreadHookVfs}) and the outcome of a
 * call on another thread, awaited with a timeout ({@link dev.lacuna.vfs.testing.CallOutcome}). Lacuna's own power-loss suites and
 * {@code lacuna crashtest} run on it; a user's crash tests may too.
 *
 * <p>Exported by module {@code dev.lacuna.wal}; depends on nothing of Lacuna but {@code dev.lacuna.vfs}, and on no
 * test library (a failed check is an {@link java.lang.AssertionError}). All of the package is main code: a
 * package of a named module hides a test-jar's classes of the same package from the other modules' test
 * compilation, so the package cannot be split between this jar and a test-jar. Only its own tests are in the
 * test tree.
 */
package dev.lacuna.vfs.testing;
