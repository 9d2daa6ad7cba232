/**
 * Desired specs through the API: validation against the node's GPUs, signed publication to
 * fleet.node-desired and fleet.node-commands, and convergence views.
 */
package io.fleetwave.controlplane.spec;
