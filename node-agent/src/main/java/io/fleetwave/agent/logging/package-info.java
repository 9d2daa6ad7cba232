/**
 * How the agent's log reads: one line per record, as text (default) or as one JSON object ({@code
 * FLEETWAVE_LOG_FORMAT=json}), through java.util.logging, which the JDK already has; the per-event
 * lines carry their node, event, epoch and seq as fields ({@link
 * io.fleetwave.agent.logging.LogFields}).
 */
package io.fleetwave.agent.logging;
