package io.fleetwave.events.gpu;

import java.util.List;

/**
 * One GPU-instance profile of one GPU model, e.g. {@code 3g.40gb} on an H100.
 *
 * @param name the profile name users write
 * @param kind the geometry kind it maps to (e.g. {@code 3g}, {@code 1g+me})
 * @param profileId NVML GPU-instance profile id
 * @param computeSlices compute slices it takes
 * @param memorySlices memory slices it takes, which is also its placement size
 * @param maxCount most instances of this profile one GPU can hold
 * @param starts memory slices where an instance of it may start
 */
public record MigProfile(
    String name,
    String kind,
    int profileId,
    int computeSlices,
    int memorySlices,
    int maxCount,
    List<Integer> starts) {
  public MigProfile {
    starts = List.copyOf(starts);
  }

  /** True for the media-extension variant, of which a GPU holds at most one. */
  public boolean mediaExtensions() {
    return kind.contains("+me");
  }
}
