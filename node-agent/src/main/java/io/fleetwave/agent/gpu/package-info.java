/**
 * The GPU port: what the reconciler observes and asks of the hardware, implemented by NVML on a
 * real node and by the simulator. Pure (ArchitectureTest).
 */
package io.fleetwave.agent.gpu;
