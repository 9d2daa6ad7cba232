/**
 * What a log line is about: the node and the rollout a piece of work concerns, put into the MDC
 * where that work runs ({@link io.fleetwave.controlplane.logging.LogContext}), so a plain-text line
 * and a JSON line ({@code QUARKUS_LOG_CONSOLE_JSON_ENABLED=true}) both carry them.
 */
package io.fleetwave.controlplane.logging;
