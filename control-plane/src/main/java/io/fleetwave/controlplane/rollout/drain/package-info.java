/**
 * Taking a node out of service around its change: why each change is disruptive (Disruption, pure)
 * and the drain port the engine calls.
 */
package io.fleetwave.controlplane.rollout.drain;
