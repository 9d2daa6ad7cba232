/**
 * The node's own identity: its Ed25519 key (kept 0600 in the state directory of a writable host, in
 * memory on a read-only one) and its enrolment with the control plane against a bootstrap
 * credential, after which every event it publishes is signed.
 */
package io.fleetwave.agent.identity;
