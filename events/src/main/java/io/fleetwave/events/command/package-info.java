/**
 * Commands the control plane sends to one node (apply a spec, reset a GPU, re-probe), signed, with
 * their validity window and codec.
 */
package io.fleetwave.events.command;
