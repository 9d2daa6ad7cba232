/**
 * The read model: every query over the projection's tables (nodes, gpus, the gpu_instances view of
 * their MIG instances, node_reconcile, reconcile_steps, node_events) and the views those queries
 * return, for the REST API, the desired-spec service, the rollout planner and the rollout engine.
 * Only this package and the projection's writer hold SQL against those tables, so a schema change
 * of the projection is made in two places (ArchitectureTest checks it).
 */
package io.fleetwave.controlplane.readmodel;
