/**
 * JFR events as telemetry that never fails the work it describes ({@link dev.lacuna.jfr.EventGuard}). Internal:
 * exported only to the engine's modules.
 */
package dev.lacuna.jfr;
