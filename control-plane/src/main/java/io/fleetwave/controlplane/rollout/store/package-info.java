/**
 * Rollouts in PostgreSQL: created with their plan (refused when a planned node belongs to an active
 * rollout), and what the API lists and shows of their progress.
 */
package io.fleetwave.controlplane.rollout.store;
