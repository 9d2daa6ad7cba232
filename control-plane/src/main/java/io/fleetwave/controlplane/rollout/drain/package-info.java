/**
 * Taking a node out of service around its change: the drain port the engine calls. Why each change
 * is disruptive is pure and lives in rollout-core ({@code io.fleetwave.core.rollout.disruption}).
 */
package io.fleetwave.controlplane.rollout.drain;
