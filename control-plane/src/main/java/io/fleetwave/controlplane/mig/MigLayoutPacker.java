package io.fleetwave.controlplane.mig;

import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.gpu.MigGeometry;
import io.fleetwave.events.gpu.MigProfile;
import io.fleetwave.events.node.GpuInstance;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds concrete placements for a set of MIG instances on one GPU, or proves there are none.
 *
 * <p>An instance of a profile may start only at the profile's allowed memory slices, occupies
 * {@code memorySlices} consecutive memory slices from there, and uses {@code computeSlices} of the
 * GPU's compute slices. Instances must not overlap in memory and their compute must not exceed the
 * GPU's. The search is a depth-first backtracking over instances, largest first, trying starts in
 * ascending order; equal profiles are placed in ascending start order so that no arrangement is
 * tried twice. A GPU holds at most 8 instances, so the search is tiny. The result is deterministic:
 * the same counts always give the same placements, sorted by start.
 */
public final class MigLayoutPacker {
  private static final Comparator<MigProfile> LARGEST_FIRST =
      Comparator.comparingInt(MigProfile::memorySlices)
          .reversed()
          .thenComparing(Comparator.comparingInt(MigProfile::computeSlices).reversed())
          .thenComparing(MigProfile::name);

  private MigLayoutPacker() {}

  /**
   * Packs instances given by profile name for a model.
   *
   * @throws IllegalArgumentException if the model is not MIG capable or lacks a profile
   */
  public static Optional<List<GpuInstance>> pack(GpuModel model, Map<String, Integer> counts) {
    if (!model.migCapable()) {
      throw new IllegalArgumentException(model.shortName() + " is not MIG capable");
    }
    List<MigProfile> instances = new ArrayList<>();
    counts.forEach(
        (name, count) -> {
          MigProfile profile =
              model
                  .profile(name)
                  .orElseThrow(
                      () ->
                          new IllegalArgumentException(
                              "profile " + name + " does not exist on " + model.shortName()));
          for (int i = 0; i < count; i++) {
            instances.add(profile);
          }
        });
    return pack(model.mig(), instances);
  }

  /** Packs a list of instances (a profile once per instance) into a geometry. */
  public static Optional<List<GpuInstance>> pack(MigGeometry geometry, List<MigProfile> instances) {
    List<MigProfile> order = instances.stream().sorted(LARGEST_FIRST).toList();
    int memory = order.stream().mapToInt(MigProfile::memorySlices).sum();
    int compute = order.stream().mapToInt(MigProfile::computeSlices).sum();
    if (memory > geometry.memorySlices() || compute > geometry.computeSlices()) {
      return Optional.empty();
    }
    int[] starts = new int[order.size()];
    boolean[] used = new boolean[geometry.memorySlices()];
    if (!place(geometry, order, 0, used, starts)) {
      return Optional.empty();
    }
    List<GpuInstance> placed = new ArrayList<>();
    for (int i = 0; i < order.size(); i++) {
      placed.add(new GpuInstance(order.get(i).name(), starts[i], order.get(i).memorySlices()));
    }
    placed.sort(Comparator.comparingInt(GpuInstance::placementStart));
    return Optional.of(List.copyOf(placed));
  }

  private static boolean place(
      MigGeometry geometry, List<MigProfile> order, int next, boolean[] used, int[] starts) {
    if (next == order.size()) {
      return true;
    }
    MigProfile profile = order.get(next);
    // Identical profiles go in ascending start order: swapping two of them is the same layout.
    int minStart =
        next > 0 && order.get(next - 1).equals(profile) ? starts[next - 1] + 1 : Integer.MIN_VALUE;
    for (int start : profile.starts()) {
      if (start < minStart || !free(used, start, profile.memorySlices())) {
        continue;
      }
      mark(used, start, profile.memorySlices(), true);
      starts[next] = start;
      if (place(geometry, order, next + 1, used, starts)) {
        return true;
      }
      mark(used, start, profile.memorySlices(), false);
    }
    return false;
  }

  private static boolean free(boolean[] used, int start, int size) {
    if (start < 0 || start + size > used.length) {
      return false;
    }
    for (int i = start; i < start + size; i++) {
      if (used[i]) {
        return false;
      }
    }
    return true;
  }

  private static void mark(boolean[] used, int start, int size, boolean value) {
    for (int i = start; i < start + size; i++) {
      used[i] = value;
    }
  }
}
