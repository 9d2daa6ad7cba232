/**
 * The agent's Prometheus metrics and its probes ({@link io.fleetwave.agent.health.Probe}), served
 * on one opt-in port. Only {@link io.fleetwave.agent.AgentMain} touches this package, and only when
 * a metrics port is set: without it no Prometheus or HTTP server class is loaded, which keeps the
 * agent's footprint (and the probes, which need the port, are not served).
 */
package io.fleetwave.agent.metrics;
