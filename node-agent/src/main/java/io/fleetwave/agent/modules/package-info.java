/**
 * Loading and unloading the NVIDIA kernel modules in dependency order, and who holds them
 * (/proc/modules).
 */
package io.fleetwave.agent.modules;
