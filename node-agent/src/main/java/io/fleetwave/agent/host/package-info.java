/**
 * What the host is (OS, mounts, systemd, driver root, device root, with the reasons) and HostProbe,
 * which finds it out at start.
 */
package io.fleetwave.agent.host;
