package dev.lacuna.bench;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexDescription;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Query;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.HdrHistogram.Histogram;

/**
 * Where {@link IndexLagBenchmark}'s slow samples come from: the same paced SYNC writes on the real disk, with a JFR
 * recording of the same JVM; every sample slower than {@code slowMs} is matched against the events whose span
 * overlaps it (the updater's flushes and fsyncs, other flushes, compactions, GC pauses, safepoints, the
 * updater's own apply batches). Each slow sample gets one cause: when the updater applied it is the end of the
 * first {@code dev.lacuna.IndexApply} event at or past its LSN, so a sample applied in time and seen late is the
 * watcher's; otherwise the first of the checkpoint, a GC pause, a slow apply batch, a flush or compaction, or
 * nothing, that overlaps its wait. The slow apply batches' wall time is then split into lock waits, GC pauses,
 * the updater seen running, and the rest (the processor taken). Also prints two baselines of the machine's own
 * noise: the write's acknowledgement time itself, and how late the watcher first looked at a sample.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.lacuna.bench.IndexLagProfile 50 20 5 mem wait}
 * (load percent, seconds, slow threshold ms, {@code mem}, {@code disk} or {@code diskNone} as IndexLagBenchmark's {@code store},
 * {@code wait} for its watcher or {@code spin} for the one it had before: spinning for new writes and yielding
 * between looks at the index).
 */
public final class IndexLagProfile {
    private IndexLagProfile() {
    }

    public static void main(String[] args) throws Exception {
        int load = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        long slowNanos = TimeUnit.MILLISECONDS.toNanos(args.length > 2 ? Long.parseLong(args[2]) : 5);
        String store = args.length > 3 ? args[3] : "mem";
        Path dir = Files.createTempDirectory("index-lag-profile");
        DatabaseOptions options = switch (store) {
            case "disk" -> DatabaseOptions.builder().durability(Durability.SYNC).build();
            case "diskNone" -> DatabaseOptions.builder().durability(Durability.NONE).build();
            default -> DatabaseOptions.builder().vfs(new MemVfs()).durability(Durability.NONE).build();
        };
        System.out.println("store " + store + " (as IndexLagBenchmark's)");
        try (Database db = Database.open(dir, options)) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                    .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
            Table table = db.table("Tickets");
            long[] counter = {0};
            Runnable write = () -> {
                long i = counter[0]++;
                table.putItem(Item.builder().s("pk", "TICKET#" + (i % 10_000)).s("GSI1PK", "QUEUE#" + (i % 16))
                        .s("GSI1SK", IndexLagBenchmark.sortKey(i)).build());
            };
            // As IndexLagBenchmark: the maximum is measured after as long again at full speed (the JIT's warm-up).
            double maxRate = 0;
            for (int round = 0; round < 2; round++) {
                long start = System.nanoTime();
                long n = 0;
                while (System.nanoTime() - start < 5_000_000_000L) {
                    write.run();
                    n++;
                }
                maxRate = n / ((System.nanoTime() - start) / 1e9);
            }
            System.out.printf(Locale.ROOT, "maximum write rate: %.0f writes/s%n", maxRate);

            // "default", not "profile": the profile's allocation sampling halved the rate the engine kept up with.
            Recording rec = new Recording(Configuration.getConfiguration("default"));
            for (String e : List.of("dev.lacuna.Flush", "dev.lacuna.Compaction", "dev.lacuna.LogSync",
                    "dev.lacuna.IndexApply", "dev.lacuna.WriteStall", "jdk.FileForce", "jdk.GCPhasePause",
                    "jdk.SafepointBegin", "jdk.JavaMonitorWait", "jdk.JavaMonitorEnter", "jdk.ThreadPark",
                    "jdk.FileWrite")) {
                rec.enable(e).withThreshold(Duration.ZERO);
            }
            rec.enable("jdk.JavaMonitorWait").withThreshold(Duration.ofMillis(1));
            rec.enable("jdk.ThreadPark").withThreshold(Duration.ofMillis(1));
            rec.enable("jdk.FileWrite").withThreshold(Duration.ofMillis(1));
            rec.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
            rec.start();
            long wallOffset = instantNanos(Instant.now()) - System.nanoTime();

            long writes = (long) (seconds * maxRate * load / 100.0);
            long[] ackAt = new long[(int) writes];
            long[] ackTook = new long[(int) writes];
            long[] lsnOf = new long[(int) writes];
            long[] seenAt = new long[(int) writes];
            long[] lookedAt = new long[(int) writes];
            AtomicLong published = new AtomicLong(); // samples 0..published-1 are filled in
            boolean spin = args.length > 4 && args[4].equals("spin");
            Query waitForIndex = new Query("GSI1PK = :q").index("GSI1").value(":q", AttributeValue.s("QUEUE#0"))
                    .limit(1).readYourWrites(Duration.ofSeconds(60));
            Thread watcher = new Thread(() -> {
                int next = 0;
                while (next < writes) {
                    if (next >= published.get()) {
                        if (spin) {
                            Thread.onSpinWait(); // the watcher of IndexLagBenchmark before issue 13's profile
                        } else {
                            LockSupport.park(); // woken by the writer
                        }
                        continue;
                    }
                    long first = System.nanoTime();
                    if (lookedAt[next] == 0) {
                        lookedAt[next] = first;
                    }
                    if (!spin && lsnOf[next] > db.describeTable("Tickets").index("GSI1").appliedLsn()) {
                        table.query(waitForIndex); // as IndexLagBenchmark now: woken by the updater
                    }
                    long applied = db.describeTable("Tickets").index("GSI1").appliedLsn();
                    long now = System.nanoTime();
                    int limit = (int) published.get();
                    while (next < limit && lsnOf[next] <= applied) {
                        seenAt[next++] = now;
                    }
                    if (next < limit && lookedAt[next] == 0) {
                        lookedAt[next] = now;
                    }
                    if (spin) {
                        Thread.yield();
                    }
                }
            }, "lag-watcher");
            watcher.start();
            Map<String, long[]> switchesBefore = contextSwitches();
            Map<String, Long> cpuBefore = cpuTicks();
            long cpuFrom = System.nanoTime();
            long interval = (long) (1e9 / (maxRate * load / 100.0));
            long t0 = System.nanoTime();
            for (int i = 0; i < writes; i++) {
                long wait = t0 + i * interval - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                long before = System.nanoTime();
                write.run();
                long ack = System.nanoTime();
                IndexDescription d = db.describeTable("Tickets").index("GSI1");
                lsnOf[i] = d.appliedLsn() + d.lagLsn();
                ackAt[i] = ack;
                ackTook[i] = ack - before;
                published.set(i + 1);
                if (!spin) {
                    LockSupport.unpark(watcher);
                }
            }
            watcher.join();
            Map<String, long[]> switchesAfter = contextSwitches();
            Map<String, Long> cpuAfter = cpuTicks();
            double cpuSeconds = (System.nanoTime() - cpuFrom) / 1e9;
            rec.stop();
            Path jfr = dir.resolveSibling(dir.getFileName() + ".jfr");
            rec.dump(jfr);
            rec.close();
            System.out.println("recording: " + jfr);

            Histogram lag = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            Histogram acks = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            Histogram looks = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            List<long[]> slow = new ArrayList<>(); // {ack wall nanos, visible wall nanos, index}
            for (int i = 0; i < writes; i++) {
                long l = Math.max(0, seenAt[i] - ackAt[i]);
                lag.recordValue(l);
                acks.recordValue(ackTook[i]);
                looks.recordValue(Math.max(0, lookedAt[i] - ackAt[i]));
                if (l > slowNanos) {
                    slow.add(new long[] {ackAt[i] + wallOffset, seenAt[i] + wallOffset, lsnOf[i]});
                }
            }
            System.out.printf(Locale.ROOT, "load %d %% (%.0f writes/s, %d writes)%n", load, maxRate * load / 100,
                    writes);
            print("ack to visible in GSI", lag);
            print("write call (ack latency)", acks);
            print("ack to watcher's first look", looks);
            // Wake-ups per write: each voluntary switch is a wait ended by another thread (on 2 cores, a wake-up
            // costs the thread it preempts); the involuntary ones are preemptions.
            switchesAfter.forEach((thread, after) -> {
                long[] before = switchesBefore.getOrDefault(thread, new long[2]);
                System.out.printf(Locale.ROOT, "  context switches per write, %-16s voluntary %.2f, involuntary %.2f%n",
                        thread, (after[0] - before[0]) / (double) writes, (after[1] - before[1]) / (double) writes);
            });
            // Processor time per thread (group) while paced: on 2 cores, a sum near 200 % leaves nothing to spare.
            double total = 0;
            StringBuilder line = new StringBuilder();
            for (Map.Entry<String, Long> e : cpuAfter.entrySet()) {
                double percent = (e.getValue() - cpuBefore.getOrDefault(e.getKey(), 0L)) / cpuSeconds;
                total += percent;
                if (percent >= 0.5) {
                    line.append(String.format(Locale.ROOT, " %s %.0f %%,", e.getKey(), percent));
                }
            }
            System.out.printf(Locale.ROOT, "  processor while paced: %.0f %% in all;%s%n", total, line);
            attribute(jfr, slow, slowNanos);
        } finally {
            try (java.util.stream.Stream<Path> files = Files.walk(dir)) { // the recording beside it stays
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(f);
                }
            }
        }
    }

    /**
     * Voluntary and involuntary context switches so far of the threads that take part (Linux's
     * {@code /proc/self/task/N/status}; empty elsewhere), by thread name as the kernel truncates it.
     */
    private static Map<String, long[]> contextSwitches() {
        Map<String, long[]> out = new TreeMap<>();
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return out;
        }
        try (java.util.stream.Stream<Path> list = Files.list(tasks)) {
            for (Path task : list.toList()) {
                String name = "";
                long voluntary = 0;
                long involuntary = 0;
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("Name:")) {
                            name = line.substring(5).trim();
                        } else if (line.startsWith("voluntary_ctxt_switches:")) {
                            voluntary = Long.parseLong(line.substring(24).trim());
                        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                            involuntary = Long.parseLong(line.substring(27).trim());
                        }
                    }
                } catch (java.io.IOException e) {
                    continue; // the thread ended meanwhile
                }
                if (name.equals("java") || name.startsWith("lacuna-index") || name.startsWith("lag-watcher")) {
                    long[] sum = out.computeIfAbsent(name.equals("java") ? "writer (main)" : name, k -> new long[2]);
                    sum[0] += voluntary;
                    sum[1] += involuntary;
                }
            }
        } catch (java.io.IOException e) {
            return out;
        }
        return out;
    }

    /**
     * Processor time so far (user and system, in Linux clock ticks of 10 ms, so 1 tick = 1 % of a second) of every
     * thread of this JVM, by name with its digits dropped (the GC's, the background threads' groups); empty off Linux.
     */
    private static Map<String, Long> cpuTicks() {
        Map<String, Long> out = new TreeMap<>();
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return out;
        }
        try (java.util.stream.Stream<Path> list = Files.list(tasks)) {
            for (Path task : list.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    String name = stat.substring(open + 1, close).replaceAll("[0-9]", "");
                    String[] fields = stat.substring(close + 2).split(" ");
                    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
                    out.merge(name.equals("java") ? "writer (main)" : name, ticks, Long::sum);
                } catch (java.io.IOException | RuntimeException e) {
                    continue; // the thread ended meanwhile
                }
            }
        } catch (java.io.IOException e) {
            return out;
        }
        return out;
    }

    private static void print(String what, Histogram h) {
        System.out.printf(Locale.ROOT, "  %-28s p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms%n", what,
                h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6,
                h.getValueAtPercentile(99.9) / 1e6, h.getMaxValue() / 1e6);
    }

    private static long instantNanos(Instant i) {
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    /** Prints, for the slow samples, which kinds of event overlapped them, and the slowest episodes in detail. */
    private static void attribute(Path jfr, List<long[]> slow, long slowNanos) throws Exception {
        List<RecordedEvent> events = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            String name = e.getEventType().getName();
            if (name.startsWith("dev.lacuna.") || name.equals("jdk.FileForce") || name.equals("jdk.GCPhasePause")
                    || name.equals("jdk.SafepointBegin") || name.equals("jdk.JavaMonitorWait")
                    || name.equals("jdk.JavaMonitorEnter") || name.equals("jdk.ThreadPark")
                    || name.equals("jdk.FileWrite") || name.equals("jdk.ExecutionSample")) {
                events.add(e);
            }
        }
        events.sort(Comparator.comparing(RecordedEvent::getStartTime));
        List<RecordedEvent> spans = new ArrayList<>(); // what can explain a slow sample
        for (RecordedEvent e : events) {
            boolean flush = e.getEventType().getName().equals("dev.lacuna.Flush");
            if (!e.getEventType().getName().equals("jdk.ExecutionSample")
                    && (flush || e.getDuration().toNanos() >= 200_000)) {
                spans.add(e);
            }
        }
        System.out.printf(Locale.ROOT, "%d samples over %d ms; %d events%n", slow.size(), slowNanos / 1_000_000,
                events.size());
        // When the updater applied each slow sample's LSN (the end of the first IndexApply event at or past it):
        // splits each slow sample's lag into the updater's part and the watcher's.
        List<long[]> applies = new ArrayList<>(); // {end wall nanos, lsn}
        for (RecordedEvent e : events) {
            if (e.getEventType().getName().equals("dev.lacuna.IndexApply")) {
                applies.add(new long[] {instantNanos(e.getEndTime()), e.getLong("lsn")});
            }
        }
        applies.sort(Comparator.comparingLong((long[] a) -> a[1]));
        // The updater's checkpoints: from a log sync on an index thread (a checkpoint's first step: nothing else
        // syncs the log of a NONE database) to the updater's next apply batch, if the updater ran it, or to the end
        // of the index keyspace's flush that follows, if another thread did.
        List<long[]> checkpoints = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            RecordedEvent e = events.get(i);
            String t = e.getThread() == null ? "" : String.valueOf(e.getThread().getJavaName());
            if (e.getEventType().getName().equals("dev.lacuna.LogSync")
                    && (t.startsWith("lacuna-index") || t.startsWith("lacuna-checkpoint"))) {
                long from = instantNanos(e.getStartTime());
                long to = instantNanos(e.getEndTime());
                for (int j = i + 1; j < events.size(); j++) {
                    RecordedEvent f = events.get(j);
                    // The same thread, not the same name: each routine checkpoint runs on a new thread of one name,
                    // and matched by name the span ran on to the next checkpoint's events (~1 s each).
                    if (f.getThread() != null && f.getThread().getJavaThreadId() == e.getThread().getJavaThreadId() && !f.getEventType().getName().equals("jdk.ExecutionSample")
                            && !f.getEventType().getName().equals("dev.lacuna.LogSync")) {
                        to = Math.max(to, instantNanos(f.getEndTime()));
                        if (f.getEventType().getName().equals("dev.lacuna.IndexApply")) {
                            to = instantNanos(f.getStartTime());
                            break;
                        }
                    }
                    if (instantNanos(f.getStartTime()) - from > 2_000_000_000L) {
                        break;
                    }
                }
                checkpoints.add(new long[] {from, to});
            }
        }
        System.out.printf(Locale.ROOT, "%d checkpoints on an index thread:", checkpoints.size());
        checkpoints.forEach(c -> System.out.printf(Locale.ROOT, " %.1f", (c[1] - c[0]) / 1e6));
        System.out.println(" ms");
        Histogram updaterPart = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        Histogram watcherPart = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        Map<String, Integer> causes = new TreeMap<>();
        for (long[] s : slow) {
            int lo = 0;
            int hi = applies.size();
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (applies.get(mid)[1] < s[2]) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if (lo == applies.size()) {
                causes.merge("z: no apply recorded", 1, Integer::sum);
                continue;
            }
            long at = applies.get(lo)[0];
            updaterPart.recordValue(Math.max(0, at - s[0]));
            watcherPart.recordValue(Math.max(0, s[1] - at));
            if (at - s[0] <= slowNanos) {
                causes.merge("f: applied in time, the watcher looked late", 1, Integer::sum);
                continue;
            }
            long from = s[0];
            causes.merge(cause(from, at, checkpoints, spans), 1, Integer::sum);
        }
        System.out.println("slow samples by cause (the first that applies, in this order):");
        causes.forEach((k, v) -> System.out.printf(Locale.ROOT, "  %6d (%5.1f %%)  %s%n", v, 100.0 * v / slow.size(),
                k));
        print("slow: ack to applied", updaterPart);
        slowApplies(events);
        print("slow: applied to seen", watcherPart);
        Map<String, Integer> overlapCount = new TreeMap<>();
        int none = 0;
        for (long[] s : slow) {
            java.util.Set<String> kinds = new java.util.TreeSet<>();
            for (RecordedEvent e : spans) {
                long es = instantNanos(e.getStartTime());
                long ee = instantNanos(e.getEndTime());
                if (es > s[1]) {
                    break;
                }
                if (ee < s[0] || e.getEventType().getName().equals("jdk.ExecutionSample")) {
                    continue;
                }
                if (ee - es < 500_000 && !e.getEventType().getName().equals("dev.lacuna.Flush")) {
                    continue; // short events explain nothing of a >5 ms lag
                }
                kinds.add(kind(e));
            }
            if (kinds.isEmpty()) {
                none++;
            }
            for (String k : kinds) {
                overlapCount.merge(k, 1, Integer::sum);
            }
        }
        System.out.println("slow samples overlapped by (an event ≥ 0.5 ms; a sample may count under several):");
        overlapCount.forEach((k, v) -> System.out.printf(Locale.ROOT, "  %5d  %s%n", v, k));
        System.out.printf(Locale.ROOT, "  %5d  nothing recorded%n", none);
        // Episodes: runs of slow samples whose windows overlap; the ten longest in detail.
        List<long[]> episodes = new ArrayList<>();
        for (long[] s : slow) {
            long[] last = episodes.isEmpty() ? null : episodes.get(episodes.size() - 1);
            if (last != null && s[0] <= last[1]) {
                last[1] = Math.max(last[1], s[1]);
                last[2]++;
            } else {
                episodes.add(new long[] {s[0], s[1], 1});
            }
        }
        episodes.sort(Comparator.comparingLong((long[] e) -> -(e[1] - e[0])));
        System.out.printf(Locale.ROOT, "%d episodes; the longest:%n", episodes.size());
        for (long[] ep : episodes.subList(0, Math.min(12, episodes.size()))) {
            System.out.printf(Locale.ROOT, "episode %.3f ms, %d samples%n", (ep[1] - ep[0]) / 1e6, ep[2]);
            Map<String, Integer> samples = new TreeMap<>();
            for (RecordedEvent e : events) {
                long es = instantNanos(e.getStartTime());
                long ee = instantNanos(e.getEndTime());
                if (es > ep[1]) {
                    break;
                }
                if (ee < ep[0]) {
                    continue;
                }
                if (e.getEventType().getName().equals("jdk.ExecutionSample")) {
                    String t = e.getThread("sampledThread") == null ? "?" : e.getThread("sampledThread").getJavaName();
                    if (t != null && t.startsWith("lacuna-index")) {
                        var st = e.getStackTrace();
                        String top = st == null ? "?" : st.getFrames().stream().limit(6)
                                .map(f -> f.getMethod().getType().getName().replaceAll(".*\\.", "") + "."
                                        + f.getMethod().getName())
                                .reduce((a, b) -> a + " < " + b).orElse("?");
                        samples.merge(top, 1, Integer::sum);
                    }
                    continue;
                }
                if (ee - es < 200_000 && !e.getEventType().getName().startsWith("dev.lacuna.Flush")) {
                    continue;
                }
                System.out.printf(Locale.ROOT, "   %+8.3f ms  %7.3f ms  %s%n", (es - ep[0]) / 1e6, (ee - es) / 1e6,
                        kind(e));
            }
            samples.forEach((k, v) -> System.out.printf(Locale.ROOT, "   updater sampled %d× at %s%n", v, k));
        }
    }

    /**
     * Where the wall time of the apply batches over 2 ms went: the updater waiting for the commit lock (parked on
     * a ReentrantLock), the index's entries lock (a ReentrantReadWriteLock), a monitor, or in a monitor's wait
     * (the drain of inserts in flight, a record not yet visible; each printed apart), GC pauses, the updater seen
     * running by the execution sampler (one sample per 10 ms it runs, roughly), and the rest (runnable but not
     * running: the processor taken by other threads).
     */
    private static void slowApplies(List<RecordedEvent> events) {
        List<RecordedEvent> applies = new ArrayList<>();
        List<long[]> lockWaits = new ArrayList<>();
        List<String> lockKinds = new ArrayList<>(); // what each of lockWaits waited for
        List<long[]> pauses = new ArrayList<>();
        List<Long> running = new ArrayList<>();
        for (RecordedEvent e : events) {
            String name = e.getEventType().getName();
            String t = e.getThread() == null ? "" : String.valueOf(e.getThread().getJavaName());
            long es = instantNanos(e.getStartTime());
            long ee = instantNanos(e.getEndTime());
            if (name.equals("dev.lacuna.IndexApply") && ee - es > 2_000_000) {
                applies.add(e);
            } else if (t.startsWith("lacuna-index") && (name.equals("jdk.ThreadPark")
                    || name.equals("jdk.JavaMonitorEnter") || (name.equals("jdk.JavaMonitorWait")
                    && !kind(e).contains("(Object)")))) { // waits on an Object: for the log, between batches
                lockWaits.add(new long[] {es, ee});
                lockKinds.add(kind(e).replace(" on UPDATER", ""));
            } else if (name.equals("jdk.GCPhasePause")) {
                pauses.add(new long[] {es, ee});
            } else if (name.equals("jdk.ExecutionSample")) {
                var st = e.getThread("sampledThread");
                if (st != null && String.valueOf(st.getJavaName()).startsWith("lacuna-index")) {
                    running.add(es);
                }
            }
        }
        long total = 0;
        long locked = 0;
        Map<String, Long> lockedBy = new TreeMap<>();
        long paused = 0;
        long samples = 0;
        long records = 0;
        for (RecordedEvent a : applies) {
            long as = instantNanos(a.getStartTime());
            long ae = instantNanos(a.getEndTime());
            total += ae - as;
            records += a.getInt("records");
            for (int i = 0; i < lockWaits.size(); i++) {
                long[] w = lockWaits.get(i);
                long overlap = Math.max(0, Math.min(ae, w[1]) - Math.max(as, w[0]));
                locked += overlap;
                if (overlap > 0) {
                    lockedBy.merge(lockKinds.get(i), overlap, Long::sum);
                }
            }
            for (long[] w : pauses) {
                paused += Math.max(0, Math.min(ae, w[1]) - Math.max(as, w[0]));
            }
            for (long r : running) {
                if (r >= as && r < ae) {
                    samples++;
                }
            }
        }
        System.out.printf(Locale.ROOT, "apply batches over 2 ms: %d (%d records), %.1f ms in all: waiting for a lock"
                        + " %.1f ms, GC pauses %.1f ms, seen running %d times (~%d ms), the rest not accounted for%n",
                applies.size(), records, total / 1e6, locked / 1e6, paused / 1e6, samples, samples * 10);
        // ReentrantLock: the commit lock (or the log's write lock inside it); ReentrantReadWriteLock: the index's
        // entries lock, which readers of a page hold; InsertOrder: the drain of writers' inserts in flight.
        lockedBy.forEach((k, v) -> System.out.printf(Locale.ROOT, "  of which %-45s %.1f ms%n", k, v / 1e6));
    }

    /** Why the updater applied a write acknowledged at {@code from} only at {@code to}. */
    private static String cause(long from, long to, List<long[]> checkpoints, List<RecordedEvent> spans) {
        for (long[] c : checkpoints) {
            if (c[0] < to && c[1] > from) {
                return "a: the index checkpoint (log sync, index flush, manifest; on the updater or its own thread)";
            }
        }
        String found = null;
        for (RecordedEvent e : spans) {
            long es = instantNanos(e.getStartTime());
            long ee = instantNanos(e.getEndTime());
            if (es >= to || ee <= from) {
                continue;
            }
            String name = e.getEventType().getName();
            String t = e.getThread() == null ? "" : String.valueOf(e.getThread().getJavaName());
            String c = null;
            if (name.equals("jdk.GCPhasePause") || name.equals("jdk.SafepointBegin")) {
                c = "b: a GC pause or safepoint";
            } else if (name.equals("dev.lacuna.IndexApply") && ee - es > 2_000_000) {
                c = "c: a slow apply batch (> 2 ms: its lock, memory room, or the processor taken)";
            } else if ((name.equals("dev.lacuna.Flush") || name.equals("dev.lacuna.Compaction"))) {
                c = "d: a table flush or compaction running (processor shared)";
            }
            if (c != null && (found == null || c.compareTo(found) < 0)) {
                found = c;
            }
        }
        return found != null ? found : "e: nothing recorded (the updater not scheduled?)";
    }

    private static String kind(RecordedEvent e) {
        String thread = e.getThread() == null ? "?" : e.getThread().getJavaName();
        if (thread != null && thread.startsWith("lacuna-index")) {
            thread = "UPDATER";
        }
        String name = e.getEventType().getName().replace("dev.lacuna.", "").replace("jdk.", "");
        String what = name;
        if (name.equals("JavaMonitorWait") || name.equals("JavaMonitorEnter")) {
            var c = e.getClass("monitorClass");
            what += "(" + (c == null ? "?" : c.getName().replaceAll(".*\\.", "")) + ")";
        }
        if (name.equals("ThreadPark")) {
            var c = e.getClass("parkedClass");
            what += "(" + (c == null ? "?" : c.getName().replaceAll(".*\\.", "")) + ")";
        }
        if (name.equals("Flush")) {
            what += "(" + e.getString("store") + ")";
        }
        return what + " on " + thread;
    }
}
