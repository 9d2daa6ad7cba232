/**
 * The rollout engine's own log on fleet.rollout-events: every decision about waves and nodes, from
 * which a rollout's state is folded again after a takeover.
 */
package io.fleetwave.events.rollout;
