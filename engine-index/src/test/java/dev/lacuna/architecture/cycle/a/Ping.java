package dev.lacuna.architecture.cycle.a;

import dev.lacuna.architecture.cycle.b.Pong;

/** Half of a deliberate package cycle: shows that {@code ArchitectureTest}'s cycle rule fails on one. */
public final class Ping {
    Pong pong;
}
