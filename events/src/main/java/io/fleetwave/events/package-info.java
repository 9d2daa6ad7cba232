/**
 * The contract between agents and the control plane: the CloudEvents envelope (node, epoch, seq),
 * the registry of versioned event types and the topic names. Plain records and constants; no
 * framework (ArchitectureTest).
 */
package io.fleetwave.events;
