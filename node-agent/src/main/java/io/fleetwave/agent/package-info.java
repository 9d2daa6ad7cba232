/**
 * The node agent: its command line and settings, its Kafka clients, and NodeAgent, which publishes
 * the node's facts and heartbeats and runs the reconciler.
 */
package io.fleetwave.agent;
