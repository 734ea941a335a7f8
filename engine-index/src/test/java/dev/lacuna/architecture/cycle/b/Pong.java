package dev.lacuna.architecture.cycle.b;

import dev.lacuna.architecture.cycle.a.Ping;

/** The other half of the deliberate package cycle. */
public final class Pong {
    Ping ping;
}
