/**
 * What an agent reports about its node on fleet.node-events: registration, heartbeats, GPU
 * inventory, the gate, and each step of applying a spec.
 */
package io.fleetwave.events.node;
