/** MIG configurations in PostgreSQL: stored, imported and seeded. */
package io.fleetwave.controlplane.mig.store;
