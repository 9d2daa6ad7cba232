package io.fleetwave.core.mig;

import io.fleetwave.events.node.GpuInstance;
import java.util.List;

/** Whether a layout fits one GPU model, with its placements or the reasons it does not. */
public sealed interface MigLayoutResult {
  /** The layout fits; {@code placements} is a concrete plan, sorted by start. */
  record Fits(List<GpuInstance> placements) implements MigLayoutResult {
    public Fits {
      placements = List.copyOf(placements);
    }
  }

  /** The layout cannot be applied; each error names the model, the profile and the entry. */
  record Rejected(List<String> errors) implements MigLayoutResult {
    public Rejected {
      errors = List.copyOf(errors);
    }
  }
}
