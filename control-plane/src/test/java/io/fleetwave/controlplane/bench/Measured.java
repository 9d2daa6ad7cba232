package io.fleetwave.controlplane.bench;

/** One endpoint's figures in an API bench: its latency over the calls and its largest answer. */
record Measured(String label, Percentiles latency, long bytes) {}
