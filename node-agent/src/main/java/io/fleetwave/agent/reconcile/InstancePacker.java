package io.fleetwave.agent.reconcile;

import io.fleetwave.events.gpu.MigGeometry;
import io.fleetwave.events.gpu.MigProfile;
import io.fleetwave.events.node.GpuInstance;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Chooses placements for wanted GPU instances around instances that stay (hardware-model.md rule
 * 3): an instance takes {@code memorySlices} consecutive memory slices from one of its profile's
 * {@code starts}, instances never overlap, compute slices add up to at most the GPU's, and no
 * profile exceeds its {@code maxCount}.
 *
 * <p>Deterministic: larger profiles first, each at the first free start in the catalogue's order
 * (first fit), backtracking when a later instance finds no room, so a layout that fits at all is
 * always found. The search is tiny (at most 8 memory slices). The control plane's MigLayoutPacker
 * answers the same question; the two can be unified later.
 */
final class InstancePacker {
  private static final Comparator<MigProfile> LARGEST_FIRST =
      Comparator.comparingInt(MigProfile::memorySlices)
          .thenComparingInt(MigProfile::computeSlices)
          .reversed()
          .thenComparing(MigProfile::name);

  private InstancePacker() {}

  /**
   * The new instances, placed, or empty if they cannot all fit next to {@code staying}.
   *
   * @param wanted profile name to count of new instances; every name must be a profile of the
   *     geometry
   */
  static Optional<List<GpuInstance>> place(
      MigGeometry geometry, List<GpuInstance> staying, Map<String, Integer> wanted) {
    List<MigProfile> todo = new ArrayList<>();
    wanted.forEach(
        (name, count) -> {
          MigProfile profile = profile(geometry, name);
          for (int i = 0; i < count; i++) {
            todo.add(profile);
          }
        });
    todo.sort(LARGEST_FIRST);
    boolean[] used = new boolean[geometry.memorySlices()];
    int compute = 0;
    for (GpuInstance instance : staying) {
      for (int s = instance.placementStart();
          s < instance.placementStart() + instance.placementSize();
          s++) {
        used[s] = true;
      }
      compute += profile(geometry, instance.profile()).computeSlices();
    }
    for (MigProfile profile : todo) {
      long total =
          staying.stream().filter(i -> i.profile().equals(profile.name())).count()
              + todo.stream().filter(p -> p.equals(profile)).count();
      if (total > profile.maxCount()) {
        return Optional.empty();
      }
    }
    List<GpuInstance> placed = new ArrayList<>();
    return search(geometry, todo, 0, used, compute, placed)
        ? Optional.of(placed)
        : Optional.empty();
  }

  private static boolean search(
      MigGeometry geometry,
      List<MigProfile> todo,
      int next,
      boolean[] used,
      int compute,
      List<GpuInstance> placed) {
    if (next == todo.size()) {
      return true;
    }
    MigProfile profile = todo.get(next);
    if (compute + profile.computeSlices() > geometry.computeSlices()) {
      return false;
    }
    // Identical instances are interchangeable: place them in increasing order only.
    int after =
        next > 0 && todo.get(next - 1).equals(profile) ? placed.getLast().placementStart() : -1;
    for (int start : profile.starts()) {
      if (start <= after || !free(used, start, profile.memorySlices())) {
        continue;
      }
      mark(used, start, profile.memorySlices(), true);
      placed.add(new GpuInstance(profile.name(), start, profile.memorySlices()));
      if (search(geometry, todo, next + 1, used, compute + profile.computeSlices(), placed)) {
        return true;
      }
      placed.removeLast();
      mark(used, start, profile.memorySlices(), false);
    }
    return false;
  }

  private static boolean free(boolean[] used, int start, int size) {
    if (start + size > used.length) {
      return false;
    }
    for (int s = start; s < start + size; s++) {
      if (used[s]) {
        return false;
      }
    }
    return true;
  }

  private static void mark(boolean[] used, int start, int size, boolean value) {
    for (int s = start; s < start + size; s++) {
      used[s] = value;
    }
  }

  private static MigProfile profile(MigGeometry geometry, String name) {
    return geometry.profiles().stream()
        .filter(p -> p.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown MIG profile '" + name + "'"));
  }
}
