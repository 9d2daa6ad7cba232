package io.fleetwave.agent.gate;

import io.fleetwave.agent.reconcile.DevicePluginGate;

/**
 * The seam for Kubernetes mode: the gate as the node label {@value #LABEL} = {@code held} | {@code
 * released}, which a device-plugin DaemonSet selects on (nodeAffinity) or a readiness check reads.
 * Not implemented in this build (no Kubernetes client in the agent yet); an implementation is one
 * more outlet of {@link AgentGate}.
 */
public interface NodeLabelGate extends DevicePluginGate {
  String LABEL = "fleetwave.io/device-plugin-gate";
}
