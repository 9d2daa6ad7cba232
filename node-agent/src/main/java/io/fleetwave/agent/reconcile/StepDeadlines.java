package io.fleetwave.agent.reconcile;

import io.fleetwave.events.node.StepKind;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/** How long each kind of step may take before it fails. Configurable per kind. */
public final class StepDeadlines {
  private final Map<StepKind, Duration> byKind;

  private StepDeadlines(Map<StepKind, Duration> byKind) {
    this.byKind = Map.copyOf(byKind);
  }

  /**
   * Defaults sized for real hardware: a targeted reset and an SR-IOV toggle can take tens of
   * seconds; instance and vGPU-type writes are quick; the gate is a label, a file or an event.
   */
  public static StepDeadlines defaults() {
    Map<StepKind, Duration> map = new EnumMap<>(StepKind.class);
    map.put(StepKind.HOLD_GATE, Duration.ofSeconds(10));
    map.put(StepKind.CLEAR_VGPU_TYPE, Duration.ofSeconds(15));
    map.put(StepKind.DESTROY_INSTANCE, Duration.ofSeconds(30));
    map.put(StepKind.DISABLE_VFS, Duration.ofSeconds(60));
    map.put(StepKind.SET_MIG_MODE, Duration.ofSeconds(30));
    map.put(StepKind.RESET_GPU, Duration.ofSeconds(60));
    map.put(StepKind.ENABLE_VFS, Duration.ofSeconds(60));
    map.put(StepKind.CREATE_INSTANCE, Duration.ofSeconds(30));
    map.put(StepKind.SET_VGPU_TYPE, Duration.ofSeconds(15));
    map.put(StepKind.RELEASE_GATE, Duration.ofSeconds(10));
    return new StepDeadlines(map);
  }

  /** The same deadlines with one kind changed. */
  public StepDeadlines with(StepKind kind, Duration deadline) {
    if (deadline == null || deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException(
          "deadline of step kind '" + kind + "' must be positive: " + deadline);
    }
    Map<StepKind, Duration> map = new EnumMap<>(byKind);
    map.put(kind, deadline);
    return new StepDeadlines(map);
  }

  /** Every kind with the same deadline (tests). */
  public static StepDeadlines all(Duration deadline) {
    StepDeadlines deadlines = defaults();
    for (StepKind kind : StepKind.values()) {
      deadlines = deadlines.with(kind, deadline);
    }
    return deadlines;
  }

  public Duration of(StepKind kind) {
    return byKind.get(kind);
  }
}
