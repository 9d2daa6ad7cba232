/**
 * Follows the node's desired spec and signed commands from Kafka (replay rules, boot records) and
 * converges the node on them one spec at a time.
 */
package io.fleetwave.agent.desired;
