package io.fleetwave.simulator.fleet;

import io.fleetwave.events.node.HostOs;
import java.util.List;
import java.util.Map;

/**
 * One entry of a fleet file: {@code count} alike nodes named {@code namePrefix-0 ..}.
 *
 * @param os the host kind with its OS facts
 * @param gpus the GPUs of each node, in index order
 */
public record NodeGroup(
    String namePrefix,
    int count,
    HostOs os,
    String zone,
    Map<String, String> labels,
    String driverVersion,
    List<GpuGroup> gpus) {
  public NodeGroup {
    labels = Map.copyOf(labels);
    gpus = List.copyOf(gpus);
  }

  public String nodeName(int index) {
    return namePrefix + "-" + index;
  }
}
