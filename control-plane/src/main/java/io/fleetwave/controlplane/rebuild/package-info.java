/**
 * The projection rebuild: the node tables, the control facts and the rollout tables replayed from
 * their logs into a scratch schema and compared with the live ones row by row. It drives both
 * projections (projection/ and rollout.engine's), so it is a package of its own above them.
 */
package io.fleetwave.controlplane.rebuild;
