/**
 * The contract between agents and the control plane: the CloudEvents envelope (node, epoch, seq),
 * the signed command envelope, the registry of versioned event types and the topic names. Plain
 * records and constants; no framework (ArchitectureTest). The registry names every record type, so
 * this package sits above the record packages, which build on {@code events.payload}.
 */
package io.fleetwave.events;
