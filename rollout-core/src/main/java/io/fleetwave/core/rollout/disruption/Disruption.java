package io.fleetwave.core.rollout.disruption;

import io.fleetwave.core.rollout.plan.NodePlan;

/**
 * How much of a node's work its change disturbs, and so what has to leave the node first.
 *
 * <p>Every change a rollout plans is disruptive (the planner leaves out nodes with nothing to
 * change), because of what the hardware refuses (docs/hardware-model.md):
 *
 * <ul>
 *   <li>a MIG mode change is committed by a GPU reset, which is refused while any compute process
 *       runs on the GPU (rule 2);
 *   <li>a MIG layout change destroys and creates GPU instances: a process on a destroyed instance
 *       dies or blocks it, and the device plugin must rescan afterwards (rules 3 and 6);
 *   <li>a driver change unloads the kernel modules, refused while anything holds /dev/nvidia* (rule
 *       8);
 *   <li>a driver that comes with the OS image (Talos, COS) reboots the node, which ends every pod.
 * </ul>
 *
 * Which GPU a pod was given is the device plugin's business and not visible here, so a change of
 * any GPU moves every GPU pod of the node. {@link #NONE} is left for a rollback of a node whose
 * forward change was never sent (it could not be drained): the rollback then sends what the node
 * already runs.
 */
public enum Disruption {
  /** Nothing the node runs is disturbed: it stays as it is. */
  NONE,
  /** The node's GPU work is disturbed: pods using its GPUs leave, the rest stay. */
  GPU,
  /** The node reboots: every pod leaves except DaemonSet and mirror pods. */
  NODE;

  /** What the plan's change does to the node's work. */
  public static Disruption of(NodePlan plan) {
    if (plan.driver() != null && plan.driver().osUpgradeNeeded()) {
      return NODE;
    }
    if (plan.driver() != null || !plan.gpuChanges().isEmpty()) {
      return GPU;
    }
    return NONE;
  }
}
