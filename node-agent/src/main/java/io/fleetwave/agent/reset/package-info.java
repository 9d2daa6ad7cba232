/**
 * GPU reset and node reboot: when a reset is allowed, who holds the devices, and what to do when a
 * reset cannot happen.
 */
package io.fleetwave.agent.reset;
