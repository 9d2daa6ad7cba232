/**
 * Simulated GPU nodes that enforce the rules of docs/hardware-model.md, and a launcher running many
 * simulated agents in one JVM; for the demo, tests and benchmarks only.
 */
package io.fleetwave.simulator;
