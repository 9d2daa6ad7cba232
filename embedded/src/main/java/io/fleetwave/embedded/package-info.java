/**
 * A real Kafka broker (KRaft, in process) and a real PostgreSQL server for the demo and every test
 * tier; never in a production artifact.
 */
package io.fleetwave.embedded;
