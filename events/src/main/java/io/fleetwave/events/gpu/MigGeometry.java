package io.fleetwave.events.gpu;

import java.util.List;

/**
 * How a MIG-capable model is sliced, with its profiles resolved to names.
 *
 * @param computeSlices compute slices of the whole GPU
 * @param memorySlices memory slices of the whole GPU (placements index these)
 * @param profiles the model's profiles
 */
public record MigGeometry(int computeSlices, int memorySlices, List<MigProfile> profiles) {
  public MigGeometry {
    profiles = List.copyOf(profiles);
  }
}
