/**
 * systemd over the system D-Bus: stopping and starting the host's GPU clients around a change, and
 * rebooting the node.
 */
package io.fleetwave.agent.hostclients;
