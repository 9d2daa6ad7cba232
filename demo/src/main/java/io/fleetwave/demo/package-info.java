/**
 * ./fleetwave demo: the control plane assembled with embedded Kafka and PostgreSQL, a simulated
 * fleet and a simulated driver executor. Never deployed.
 */
package io.fleetwave.demo;
