package io.fleetwave.agent.reconcile;

/**
 * The device-plugin gate of one node (hardware-model.md rule 6): a device plugin, or a Kubernetes
 * readiness check, waits while it is held. The agent's implementation sets a node label in
 * Kubernetes mode and a file where the state directory is writable; the executor adds the event.
 * Calls must return quickly; the executor bounds them by the gate steps' deadlines anyway.
 */
public interface DevicePluginGate {
  void hold(String reason);

  void release();

  boolean released();
}
