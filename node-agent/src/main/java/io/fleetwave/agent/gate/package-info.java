/**
 * The device-plugin gate as the node shows it: a file on the host or a Kubernetes node label, held
 * while GPUs change and released after.
 */
package io.fleetwave.agent.gate;
