package io.fleetwave.events.gpu;

import io.fleetwave.events.node.GpuInstance;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one answer to "where do these MIG instances go on this GPU?", shared by the node agent (which
 * creates them) and the control plane (which refuses layouts that cannot exist).
 *
 * <p>The hardware's rules (hardware-model.md rule 3): an instance of a profile starts only at one
 * of its profile's {@code starts} and takes {@code memorySlices} consecutive memory slices from
 * there; instances never overlap; their compute slices add up to at most the GPU's; a geometry kind
 * holds at most its {@code maxCount} instances (profile names that are aliases of one kind share
 * it); and a GPU holds at most one media-extension instance ({@code +me} kinds: A30's 1g+me and
 * 2g+me, RTX PRO's +me.all, share the one set of media engines).
 *
 * <p>The search: instances sorted largest first (memory, then compute, then name), each tried at
 * its profile's starts in the catalogue's order, backtracking when a later instance finds no room,
 * so a layout that fits at all is always found and the same request always gets the same one.
 * Identical instances are placed in increasing start order only, so no arrangement is tried twice.
 * A GPU has at most 8 memory slices, so the search is tiny. Pure: java.* and the catalogue only.
 */
public final class MigPlacer {
  private static final Comparator<MigProfile> LARGEST_FIRST =
      Comparator.comparingInt(MigProfile::memorySlices)
          .thenComparingInt(MigProfile::computeSlices)
          .reversed()
          .thenComparing(MigProfile::name);

  private MigPlacer() {}

  /**
   * Places {@code wanted} on an empty GPU.
   *
   * @see #place(MigGeometry, List, Map)
   */
  public static Optional<List<GpuInstance>> place(
      MigGeometry geometry, Map<String, Integer> wanted) {
    return place(geometry, List.of(), wanted);
  }

  /**
   * The new instances, placed, or empty when they cannot all exist next to {@code staying}.
   *
   * @param staying instances that exist and stay where they are
   * @param wanted profile name to count of new instances
   * @return the new instances sorted by placement start
   * @throws IllegalArgumentException if a profile name (wanted or staying) is not in the geometry
   *     or a count is negative
   */
  public static Optional<List<GpuInstance>> place(
      MigGeometry geometry, List<GpuInstance> staying, Map<String, Integer> wanted) {
    List<MigProfile> todo = new ArrayList<>();
    wanted.forEach(
        (name, count) -> {
          if (count < 0) {
            throw new IllegalArgumentException(
                "count of MIG profile '" + name + "' is negative: " + count);
          }
          MigProfile profile = profile(geometry, name);
          for (int i = 0; i < count; i++) {
            todo.add(profile);
          }
        });
    todo.sort(LARGEST_FIRST);

    boolean[] used = new boolean[geometry.memorySlices()];
    int compute = 0;
    List<MigProfile> all = new ArrayList<>(todo);
    for (GpuInstance instance : staying) {
      MigProfile profile = profile(geometry, instance.profile());
      if (!free(used, instance.placementStart(), instance.placementSize())) {
        return Optional
            .empty(); // what stays already overlaps or overflows: nothing fits next to it
      }
      mark(used, instance.placementStart(), instance.placementSize(), true);
      compute += profile.computeSlices();
      all.add(profile);
    }
    if (compute > geometry.computeSlices() || !withinCounts(all)) {
      return Optional.empty();
    }
    int[] starts = new int[todo.size()];
    if (!search(geometry, todo, 0, used, compute, starts)) {
      return Optional.empty();
    }
    List<GpuInstance> placed = new ArrayList<>();
    for (int i = 0; i < todo.size(); i++) {
      placed.add(new GpuInstance(todo.get(i).name(), starts[i], todo.get(i).memorySlices()));
    }
    placed.sort(
        Comparator.comparingInt(GpuInstance::placementStart).thenComparing(GpuInstance::profile));
    return Optional.of(List.copyOf(placed));
  }

  /** Per-kind maximum counts and the single media-extension instance. */
  private static boolean withinCounts(List<MigProfile> instances) {
    Map<String, Integer> perKind = new HashMap<>();
    int mediaExtensions = 0;
    for (MigProfile profile : instances) {
      if (perKind.merge(profile.kind(), 1, Integer::sum) > profile.maxCount()) {
        return false;
      }
      if (profile.mediaExtensions() && ++mediaExtensions > 1) {
        return false;
      }
    }
    return true;
  }

  private static boolean search(
      MigGeometry geometry,
      List<MigProfile> todo,
      int next,
      boolean[] used,
      int compute,
      int[] starts) {
    if (next == todo.size()) {
      return true;
    }
    MigProfile profile = todo.get(next);
    if (compute + profile.computeSlices() > geometry.computeSlices()) {
      return false;
    }
    // Identical instances are interchangeable: place them in increasing start order only.
    int after = next > 0 && todo.get(next - 1).equals(profile) ? starts[next - 1] : -1;
    for (int start : profile.starts()) {
      if (start <= after || !free(used, start, profile.memorySlices())) {
        continue;
      }
      mark(used, start, profile.memorySlices(), true);
      starts[next] = start;
      if (search(geometry, todo, next + 1, used, compute + profile.computeSlices(), starts)) {
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
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown MIG profile '"
                        + name
                        + "' (known: "
                        + geometry.profiles().stream().map(MigProfile::name).toList()
                        + ")"));
  }
}
