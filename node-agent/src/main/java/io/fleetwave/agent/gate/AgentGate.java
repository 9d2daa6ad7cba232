package io.fleetwave.agent.gate;

import io.fleetwave.agent.reconcile.DevicePluginGate;
import java.util.List;
import java.util.Objects;

/**
 * The agent's device-plugin gate: its state in memory, mirrored to every outlet the host allows (a
 * {@link GateFile} where there is a writable state directory, a {@link NodeLabelGate} in Kubernetes
 * mode). The event (GateHeld / GateReleased) is published by whoever moves the gate.
 *
 * <p>A new agent run starts from what the outlets say (a file survives an agent crash); with no
 * outlet it starts held, since it cannot know, and a release step follows.
 */
public final class AgentGate implements DevicePluginGate {
  private final List<DevicePluginGate> outlets;
  private volatile boolean released;

  public AgentGate(List<DevicePluginGate> outlets) {
    this.outlets = List.copyOf(Objects.requireNonNull(outlets, "outlets"));
    this.released =
        !this.outlets.isEmpty() && this.outlets.stream().allMatch(DevicePluginGate::released);
  }

  @Override
  public void hold(String reason) {
    released = false;
    outlets.forEach(outlet -> outlet.hold(reason));
  }

  @Override
  public void release() {
    outlets.forEach(DevicePluginGate::release);
    released = true;
  }

  @Override
  public boolean released() {
    return released;
  }
}
