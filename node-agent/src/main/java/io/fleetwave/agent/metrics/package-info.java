/**
 * The agent's Prometheus metrics, served on an opt-in port. Only {@link
 * io.fleetwave.agent.AgentMain} touches this package, and only when a metrics port is set: without
 * it no Prometheus class is loaded, which keeps the agent's footprint.
 */
package io.fleetwave.agent.metrics;
