package io.fleetwave.agent.gpu;

import java.util.List;

/**
 * One SR-IOV virtual function of a GPU.
 *
 * @param index VF number within its GPU, from 0
 * @param pciBusId the VF's own PCI address
 * @param creatableVgpuTypeIds vGPU type ids that could be written now
 * @param currentVgpuTypeId the type written, or 0
 */
public record VirtualFunction(
    int index, String pciBusId, List<Integer> creatableVgpuTypeIds, int currentVgpuTypeId) {
  public VirtualFunction {
    creatableVgpuTypeIds = List.copyOf(creatableVgpuTypeIds);
  }
}
