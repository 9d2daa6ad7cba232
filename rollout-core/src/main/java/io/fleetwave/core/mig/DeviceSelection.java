package io.fleetwave.core.mig;

import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/** The {@code devices} field of an entry: every GPU, or a list of GPU indices. */
public sealed interface DeviceSelection {
  boolean includes(int gpuIndex);

  /** {@code devices: all}. */
  record All() implements DeviceSelection {
    @Override
    public boolean includes(int gpuIndex) {
      return true;
    }

    @Override
    public String toString() {
      return "all";
    }
  }

  /** {@code devices: [0, 1]}. */
  record Indices(SortedSet<Integer> indices) implements DeviceSelection {
    public Indices {
      indices = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(indices));
    }

    public static Indices of(List<Integer> indices) {
      return new Indices(new TreeSet<>(indices));
    }

    @Override
    public boolean includes(int gpuIndex) {
      return indices.contains(gpuIndex);
    }

    @Override
    public String toString() {
      return indices.toString();
    }
  }
}
