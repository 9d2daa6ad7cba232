/**
 * What the agent's probes answer (startup, liveness, readiness), as plain values: no HTTP here. The
 * metrics port serves them ({@link io.fleetwave.agent.metrics.AgentMetrics}); without one, nothing
 * is served and nothing of HTTP is loaded.
 */
package io.fleetwave.agent.health;
