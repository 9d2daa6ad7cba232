package io.fleetwave.core.provenance;

import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A node as last reported, reduced to its aspects (driver, and per GPU MIG mode, MIG layout, VFs,
 * health) as plain text: what a change is a change of. The layout is its instances in placement
 * order ({@code 3g.40gb@0+3g.40gb@4}), empty without any.
 */
public record Observation(SortedMap<AspectKey, String> values) {
  public static final Observation NONE = new Observation(new TreeMap<>());

  public Observation {
    values = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(values));
  }

  /** This observation with the driver version a registration reported (null: none installed). */
  public Observation withDriver(String version) {
    TreeMap<AspectKey, String> next = new TreeMap<>(values);
    next.put(AspectKey.DRIVER, version == null ? "" : version);
    return new Observation(next);
  }

  /** This observation with the GPUs an inventory reported, in place of those reported before. */
  public Observation withGpus(List<Gpu> gpus) {
    TreeMap<AspectKey, String> next = new TreeMap<>(values);
    next.keySet().removeIf(key -> key.gpu() != null);
    for (Gpu gpu : gpus) {
      next.put(new AspectKey(Aspect.MIG_MODE, gpu.index()), gpu.migMode().wireName());
      next.put(new AspectKey(Aspect.MIG_LAYOUT, gpu.index()), layout(gpu.instances()));
      next.put(new AspectKey(Aspect.VFS, gpu.index()), Integer.toString(gpu.vfsEnabled()));
      next.put(new AspectKey(Aspect.HEALTH, gpu.index()), gpu.health().wireName());
    }
    return new Observation(next);
  }

  /**
   * What differs from {@code before} to this one, in key order; a GPU that appeared or went away
   * shows each of its aspects with null on the side that lacks it.
   */
  public List<Difference> since(Observation before) {
    TreeSet<AspectKey> keys = new TreeSet<>(values.keySet());
    keys.addAll(before.values.keySet());
    List<Difference> differences = new ArrayList<>();
    for (AspectKey key : keys) {
      String was = before.values.get(key);
      String now = values.get(key);
      if (!Objects.equals(was, now)) {
        differences.add(new Difference(key, was, now));
      }
    }
    return differences;
  }

  /** The stored text form: aspect key to value. */
  public Map<String, String> asText() {
    Map<String, String> text = new java.util.LinkedHashMap<>();
    values.forEach((key, value) -> text.put(key.text(), value));
    return text;
  }

  public static Observation fromText(Map<String, String> text) {
    TreeMap<AspectKey, String> values = new TreeMap<>();
    text.forEach((key, value) -> values.put(AspectKey.parse(key), value));
    return new Observation(values);
  }

  private static String layout(List<GpuInstance> instances) {
    return instances.stream()
        .sorted(Comparator.comparingInt(GpuInstance::placementStart))
        .map(i -> i.profile() + "@" + i.placementStart())
        .collect(Collectors.joining("+"));
  }

  /** One aspect from one value to another (null: the GPU was not there). */
  public record Difference(AspectKey key, String before, String after) {}
}
