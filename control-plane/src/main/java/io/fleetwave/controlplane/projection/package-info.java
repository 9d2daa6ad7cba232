/**
 * The projection of fleet.node-events into PostgreSQL: the consumer, the writer with its per-node
 * (epoch, seq) check, dead letters, snapshots, rebuild and comparison. The fold they apply is pure
 * and lives in rollout-core ({@code io.fleetwave.core.projection}).
 */
package io.fleetwave.controlplane.projection;
