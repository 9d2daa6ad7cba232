/**
 * The Quarkus application: its main, and the settings it refuses to start without (Kafka,
 * PostgreSQL).
 */
package io.fleetwave.controlplane.app;
