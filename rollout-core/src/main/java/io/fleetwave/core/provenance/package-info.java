/**
 * Provenance of observed changes, pure: what a node reports reduced to the aspects a spec can ask
 * for or a person can change by hand (Observation, Aspect), the fold that turns each node's events
 * into the changes they reveal with what was going on at that moment (ChangeFold), and the rule
 * that names a change's cause: a spec generation, a reboot, or nothing Fleetwave asked for
 * (ChangeAttribution).
 */
package io.fleetwave.core.provenance;
