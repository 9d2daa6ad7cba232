/**
 * Publishes the agent's events to fleet.node-events in (epoch, seq) order, counting what was sent,
 * acknowledged and lost.
 */
package io.fleetwave.agent.publish;
