/** Signing the commands the control plane sends, and publishing the key agents verify them with. */
package io.fleetwave.controlplane.security;
