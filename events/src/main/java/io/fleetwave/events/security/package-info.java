/**
 * Ed25519 signing and verification of commands: what is covered, and the verdict with its reason
 * when a command is refused.
 */
package io.fleetwave.events.security;
