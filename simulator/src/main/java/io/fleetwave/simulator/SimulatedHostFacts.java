package io.fleetwave.simulator;

import io.fleetwave.events.node.HostOs;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.simulator.fleet.NodeSpec;
import java.util.LinkedHashMap;
import java.util.Map;

/** The NodeRegistered facts of a simulated node, each with the reason it has that value. */
public final class SimulatedHostFacts {
  private SimulatedHostFacts() {}

  public static NodeRegistered of(NodeSpec node) {
    return of(node, node.group().driverVersion(), "driver-version of the fleet file");
  }

  /**
   * The facts of a node that runs another driver than its fleet file says (after a driver change).
   *
   * @param driverOrigin why it runs that driver, for the {@code driverVersion} reason
   */
  public static NodeRegistered of(NodeSpec node, String driverVersion, String driverOrigin) {
    HostOs os = node.os();
    String origin =
        "simulated " + os.hostKind() + " host (fleet group " + node.group().namePrefix() + ")";
    Map<String, String> reasons = new LinkedHashMap<>();
    reasons.put("hostKind", origin);
    reasons.put("osId", origin + ": os-release ID=" + os.osId());
    reasons.put("osVersion", origin + ": os-release VERSION_ID=" + os.osVersion());
    reasons.put("kernel", origin + ": kernel shipped with " + os.osId() + " " + os.osVersion());
    reasons.put(
        "readOnlyRoot", origin + (os.readOnlyRoot() ? ": root mounted ro" : ": root mounted rw"));
    reasons.put(
        "systemd",
        origin + (os.systemd() ? ": /run/systemd/system present" : ": no /run/systemd/system"));
    reasons.put("driverRoot", origin + ": driver libraries under " + os.driverRoot());
    reasons.put("deviceRoot", origin + ": /dev/nvidia* under " + os.deviceRoot());
    reasons.put(
        "driverProvider", origin + ": driver provided as " + os.driverProvider().wireName());
    reasons.put("driverVersion", origin + ": " + driverOrigin);
    return NodeRegistered.of(
        node.name(), os, driverVersion, node.group().zone(), node.group().labels(), reasons);
  }
}
