package io.fleetwave.events.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.node.GpuInstance;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link MigPlacer} against an exhaustive oracle written here: list every set of non-overlapping
 * placements a geometry allows (walking the memory slices left to right, each slice either empty or
 * the start of one profile's instance), keep those that obey the count rules, and ask whether one
 * of them holds what stays plus exactly what is wanted. Nothing in it orders, prunes or breaks
 * symmetry as the placer does.
 */
class MigPlacerProperties {

  @Property(tries = 1000)
  void findsALayoutExactlyWhenExhaustiveSearchDoes(
      @ForAll("geometries") MigGeometry geometry, @ForAll Random random) {
    List<List<GpuInstance>> layouts = validLayouts(geometry);
    List<GpuInstance> staying = staying(random, layouts);
    Map<String, Integer> wanted = wanted(random, geometry, layouts, staying);

    Optional<List<GpuInstance>> placed = MigPlacer.place(geometry, staying, wanted);

    boolean exists = layouts.stream().anyMatch(l -> holds(l, staying, wanted));
    assertThat(placed.isPresent())
        .as("placer vs exhaustive search for %s next to %s on %s", wanted, staying, geometry)
        .isEqualTo(exists);
    placed.ifPresent(
        instances -> {
          List<GpuInstance> whole = new ArrayList<>(staying);
          whole.addAll(instances);
          assertThat(layouts.stream().anyMatch(l -> sameInstances(l, whole)))
              .as("%s next to %s is one of the valid layouts", instances, staying)
              .isTrue();
          assertThat(counts(instances)).isEqualTo(nonZero(wanted));
        });
  }

  @Property(tries = 300)
  void theSameRequestAlwaysGetsTheSamePlacements(
      @ForAll("geometries") MigGeometry geometry, @ForAll Random random) {
    List<List<GpuInstance>> layouts = validLayouts(geometry);
    Map<String, Integer> wanted = counts(layouts.get(random.nextInt(layouts.size())));
    Map<String, Integer> reversed = new TreeMap<>(java.util.Comparator.reverseOrder());
    reversed.putAll(wanted);

    assertThat(MigPlacer.place(geometry, reversed)).isEqualTo(MigPlacer.place(geometry, wanted));
  }

  // ---- the oracle ----

  private static final Map<MigGeometry, List<List<GpuInstance>>> LAYOUTS =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Every non-overlapping layout of the geometry that obeys compute, per-kind and +me limits. */
  static List<List<GpuInstance>> validLayouts(MigGeometry geometry) {
    return LAYOUTS.computeIfAbsent(geometry, MigPlacerProperties::enumerate);
  }

  private static List<List<GpuInstance>> enumerate(MigGeometry geometry) {
    List<List<GpuInstance>> all = new ArrayList<>();
    walk(geometry, 0, new ArrayList<>(), all);
    return all.stream().filter(l -> obeysCounts(geometry, l)).toList();
  }

  private static void walk(
      MigGeometry geometry, int slice, List<GpuInstance> current, List<List<GpuInstance>> out) {
    if (slice >= geometry.memorySlices()) {
      out.add(List.copyOf(current));
      return;
    }
    walk(geometry, slice + 1, current, out); // this slice stays empty
    for (MigProfile profile : geometry.profiles()) {
      if (profile.starts().contains(slice)
          && slice + profile.memorySlices() <= geometry.memorySlices()) {
        current.add(new GpuInstance(profile.name(), slice, profile.memorySlices()));
        walk(geometry, slice + profile.memorySlices(), current, out);
        current.removeLast();
      }
    }
  }

  private static boolean obeysCounts(MigGeometry geometry, List<GpuInstance> layout) {
    int compute = 0;
    int mediaExtensions = 0;
    Map<String, Integer> perKind = new HashMap<>();
    for (GpuInstance instance : layout) {
      MigProfile profile = profile(geometry, instance.profile());
      compute += profile.computeSlices();
      if (profile.mediaExtensions()) {
        mediaExtensions++;
      }
      if (perKind.merge(profile.kind(), 1, Integer::sum) > profile.maxCount()) {
        return false;
      }
    }
    return compute <= geometry.computeSlices() && mediaExtensions <= 1;
  }

  /** The layout is what stays plus exactly what is wanted. */
  private static boolean holds(
      List<GpuInstance> layout, List<GpuInstance> staying, Map<String, Integer> wanted) {
    List<GpuInstance> rest = new ArrayList<>(layout);
    for (GpuInstance instance : staying) {
      if (!rest.remove(instance)) {
        return false;
      }
    }
    return counts(rest).equals(nonZero(wanted));
  }

  private static boolean sameInstances(List<GpuInstance> a, List<GpuInstance> b) {
    List<GpuInstance> rest = new ArrayList<>(a);
    return a.size() == b.size() && b.stream().allMatch(rest::remove);
  }

  // ---- the inputs ----

  /** A random part of a random valid layout, or nothing. */
  private static List<GpuInstance> staying(Random random, List<List<GpuInstance>> layouts) {
    if (random.nextInt(3) == 0) {
      return List.of();
    }
    List<GpuInstance> layout = layouts.get(random.nextInt(layouts.size()));
    return layout.stream().filter(i -> random.nextBoolean()).toList();
  }

  /**
   * What is left of a valid layout once {@code staying} is taken out, often nudged by one instance,
   * so that requests sit on both sides of "fits"; sometimes plain random counts.
   */
  private static Map<String, Integer> wanted(
      Random random,
      MigGeometry geometry,
      List<List<GpuInstance>> layouts,
      List<GpuInstance> staying) {
    List<MigProfile> profiles = geometry.profiles();
    Map<String, Integer> wanted = new TreeMap<>();
    if (random.nextInt(4) == 0) {
      for (int i = random.nextInt(6); i > 0; i--) {
        wanted.merge(profiles.get(random.nextInt(profiles.size())).name(), 1, Integer::sum);
      }
      return wanted;
    }
    List<GpuInstance> layout = layouts.get(random.nextInt(layouts.size()));
    List<GpuInstance> rest = new ArrayList<>(layout);
    staying.forEach(rest::remove);
    wanted.putAll(counts(rest));
    switch (random.nextInt(3)) {
      case 0 -> wanted.merge(profiles.get(random.nextInt(profiles.size())).name(), 1, Integer::sum);
      case 1 -> {
        if (!wanted.isEmpty()) {
          String name = new ArrayList<>(wanted.keySet()).get(random.nextInt(wanted.size()));
          wanted.merge(name, -1, Integer::sum);
        }
      }
      default -> {}
    }
    return wanted;
  }

  @Provide
  Arbitrary<MigGeometry> geometries() {
    List<MigGeometry> catalogued =
        GpuCatalog.bundled().models().stream()
            .filter(GpuModel::migCapable)
            .map(GpuModel::mig)
            .toList();
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.of(catalogued)),
        net.jqwik.api.Tuple.of(3, Arbitraries.randomValue(MigPlacerProperties::randomGeometry)));
  }

  /** Made-up hardware: any slice counts, sizes, starts, limits, +me kinds and aliased names. */
  private static MigGeometry randomGeometry(Random random) {
    int memory = 1 + random.nextInt(8);
    int compute = 1 + random.nextInt(8);
    List<MigProfile> profiles = new ArrayList<>();
    int kinds = 1 + random.nextInt(5);
    for (int k = 0; k < kinds; k++) {
      int size = 1 + random.nextInt(memory);
      List<Integer> starts = new ArrayList<>();
      for (int s = 0; s + size <= memory; s++) {
        if (random.nextInt(3) > 0) {
          starts.add(s);
        }
      }
      if (starts.isEmpty()) {
        starts.add(random.nextInt(memory - size + 1));
      }
      String kind = "k" + k + (random.nextInt(4) == 0 ? "+me" : "");
      MigProfile profile =
          new MigProfile(
              "p" + k,
              kind,
              k,
              1 + random.nextInt(compute),
              size,
              1 + random.nextInt(memory),
              starts);
      profiles.add(profile);
      if (random.nextInt(6) == 0) { // a second name for the same slices, as on GB200
        profiles.add(
            new MigProfile(
                "p" + k + "-alias",
                kind,
                k,
                profile.computeSlices(),
                size,
                profile.maxCount(),
                starts));
      }
    }
    return new MigGeometry(compute, memory, profiles);
  }

  // ---- helpers ----

  private static Map<String, Integer> counts(List<GpuInstance> instances) {
    Map<String, Integer> counts = new TreeMap<>();
    instances.forEach(i -> counts.merge(i.profile(), 1, Integer::sum));
    return counts;
  }

  private static Map<String, Integer> nonZero(Map<String, Integer> counts) {
    Map<String, Integer> kept = new TreeMap<>();
    counts.forEach(
        (name, count) -> {
          if (count > 0) {
            kept.put(name, count);
          }
        });
    return kept;
  }

  private static MigProfile profile(MigGeometry geometry, String name) {
    return geometry.profiles().stream()
        .filter(p -> p.name().equals(name))
        .findFirst()
        .orElseThrow();
  }
}
