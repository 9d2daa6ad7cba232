/** The agent's Kafka client configuration file and its overrides. */
package io.fleetwave.agent.kafka;
