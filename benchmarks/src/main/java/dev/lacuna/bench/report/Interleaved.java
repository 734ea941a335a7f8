package dev.lacuna.bench.report;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Compares one {@code ItemBenchmark} operation of two builds in one JVM, taking turns: each build's benchmarks
 * jar is loaded by a class loader of its own and set up as JMH would (100,000 tickets, {@code NONE}), then
 * each round runs the operation for a second on one build and a second on the other, alternating which goes
 * first. Whatever else the machine does falls on both alike, which back-to-back JMH runs cannot promise (their
 * figures for the same jar differ by up to half on this 2-core machine). Prints, per round, the wall time and
 * the calling thread's CPU time per operation, and the medians of B/A over the rounds after the first quarter
 * (warm-up). Run it twice with the jars swapped: what stays is the builds' difference, not the order's.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.lacuna.bench.report.Interleaved A.jar B.jar query50 0 24}.
 */
public final class Interleaved {
    private Interleaved() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: Interleaved JAR_A JAR_B OPERATION GSIS ROUNDS");
            System.exit(2);
        }
        String operation = args[2];
        int gsis = Integer.parseInt(args[3]);
        int rounds = Integer.parseInt(args[4]);
        Object[] state = new Object[2];
        Method[] op = new Method[2];
        for (int i = 0; i < 2; i++) {
            URLClassLoader loader = new URLClassLoader(new URL[] {new File(args[i]).toURI().toURL()},
                    ClassLoader.getPlatformClassLoader());
            Class<?> c = loader.loadClass("dev.lacuna.bench.ItemBenchmark");
            Object o = c.getConstructor().newInstance();
            c.getField("tickets").setInt(o, 100_000);
            c.getField("durability").set(o, "NONE");
            c.getField("gsis").setInt(o, gsis);
            c.getMethod("setUp").invoke(o);
            state[i] = o;
            op[i] = c.getMethod(operation);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        List<Double> cpu = new ArrayList<>();
        List<Double> wall = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            double[] cpuNs = new double[2];
            double[] wallNs = new double[2];
            for (int k = 0; k < 2; k++) {
                int i = (r + k) % 2; // A first in even rounds, B first in odd ones
                long ops = 0;
                long cpu0 = threads.getCurrentThreadCpuTime();
                long wall0 = System.nanoTime();
                while (System.nanoTime() - wall0 < 1_000_000_000L) {
                    for (int n = 0; n < 100; n++) {
                        op[i].invoke(state[i]);
                    }
                    ops += 100;
                }
                wallNs[i] = (System.nanoTime() - wall0) / (double) ops;
                cpuNs[i] = (threads.getCurrentThreadCpuTime() - cpu0) / (double) ops;
            }
            if (r >= rounds / 4) {
                cpu.add(cpuNs[1] / cpuNs[0]);
                wall.add(wallNs[1] / wallNs[0]);
            }
            System.out.printf("round %d: A %.0f ns/op (cpu %.0f), B %.0f ns/op (cpu %.0f)%n", r, wallNs[0], cpuNs[0],
                    wallNs[1], cpuNs[1]);
        }
        Collections.sort(cpu);
        Collections.sort(wall);
        int n = wall.size();
        System.out.printf("%s, %d GSIs: B/A per op, median of %d rounds: wall %.3f (quartiles %.3f-%.3f), cpu %.3f"
                + " (%.3f-%.3f)%n", operation, gsis, n, wall.get(n / 2), wall.get(n / 4), wall.get(3 * n / 4),
                cpu.get(n / 2), cpu.get(n / 4), cpu.get(3 * n / 4));
        for (Object o : state) {
            o.getClass().getMethod("tearDown").invoke(o);
        }
    }
}
