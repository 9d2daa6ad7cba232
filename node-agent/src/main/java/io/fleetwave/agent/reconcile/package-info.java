/**
 * The reconciler: a pure function from the desired spec and the observed node to steps in hardware
 * order (docs/hardware-model.md), and the executor that runs them through the GPU port. Pure
 * (ArchitectureTest).
 */
package io.fleetwave.agent.reconcile;
