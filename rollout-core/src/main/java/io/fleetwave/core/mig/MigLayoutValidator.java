package io.fleetwave.core.mig;

import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.gpu.MigPlacer;
import io.fleetwave.events.spec.GpuSpecRules;
import io.fleetwave.events.spec.SpecViolation;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks a mig-parted layout (MIG mode + instances by profile) against one GPU model from the
 * catalogue: MIG capability here, the layout rules (profile names, maximum counts, one
 * media-extension instance, fit) in {@link GpuSpecRules#migLayout}, the one home they share with
 * GPU specs, and the placements from {@link MigPlacer}, the placer the node agent uses too.
 */
public final class MigLayoutValidator {
  private MigLayoutValidator() {}

  /**
   * @param where how the layout is named in errors, e.g. {@code config 'x' entry 2 (line 9)}
   */
  public static MigLayoutResult validate(
      GpuModel model, boolean migEnabled, Map<String, Integer> migDevices, String where) {
    if (!migEnabled) {
      return new MigLayoutResult.Fits(List.of());
    }
    if (!model.migCapable()) {
      String asked = migDevices.isEmpty() ? "" : " and asks for " + describe(migDevices);
      return new MigLayoutResult.Rejected(
          List.of(
              model.shortName()
                  + " ("
                  + model.pciDeviceId()
                  + ") is not MIG capable: "
                  + where
                  + " enables MIG"
                  + asked));
    }
    List<SpecViolation> violations = GpuSpecRules.migLayout(model, migDevices);
    if (!violations.isEmpty()) {
      return new MigLayoutResult.Rejected(
          violations.stream().map(v -> v.message() + " (" + where + ")").toList());
    }
    Map<String, Integer> wanted = new TreeMap<>();
    migDevices.forEach(
        (name, count) -> {
          if (count > 0) {
            wanted.put(name, count);
          }
        });
    return new MigLayoutResult.Fits(
        MigPlacer.place(model.mig(), wanted)
            .orElseThrow(
                () -> new IllegalStateException("layout rules passed but nothing was placed")));
  }

  static String describe(Map<String, Integer> counts) {
    return GpuSpecRules.describe(counts);
  }
}
