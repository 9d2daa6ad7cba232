package io.fleetwave.controlplane.mig;

import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.gpu.MigPlacer;
import io.fleetwave.events.gpu.MigProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Checks a layout (MIG mode + instances by profile) against one GPU model from the catalogue: MIG
 * capability, profile names, per-profile maximum counts, at most one media-extension (+me)
 * instance, and that the instances can actually be placed ({@link MigPlacer}, the one placer the
 * node agent uses too).
 */
public final class MigLayoutValidator {
  private MigLayoutValidator() {}

  /**
   * @param where how the layout is named in errors, e.g. {@code config 'x' entry 2 (line 9)}
   */
  public static MigLayoutResult validate(
      GpuModel model, boolean migEnabled, Map<String, Integer> migDevices, String where) {
    String gpu = model.shortName() + " (" + model.pciDeviceId() + ")";
    if (!migEnabled) {
      return new MigLayoutResult.Fits(List.of());
    }
    if (!model.migCapable()) {
      String asked = migDevices.isEmpty() ? "" : " and asks for " + describe(migDevices);
      return new MigLayoutResult.Rejected(
          List.of(gpu + " is not MIG capable: " + where + " enables MIG" + asked));
    }
    Map<String, Integer> wanted =
        migDevices.entrySet().stream()
            .filter(e -> e.getValue() > 0)
            .collect(
                Collectors.toMap(
                    Map.Entry::getKey,
                    Map.Entry::getValue,
                    (a, b) -> a,
                    java.util.LinkedHashMap::new));
    List<String> errors = new ArrayList<>();
    List<MigProfile> instances = new ArrayList<>();
    int mediaExtensions = 0;
    for (var want : wanted.entrySet()) {
      Optional<MigProfile> profile = model.profile(want.getKey());
      if (profile.isEmpty()) {
        errors.add(
            "profile "
                + want.getKey()
                + " does not exist on "
                + gpu
                + " ("
                + where
                + "); its profiles are "
                + model.mig().profiles().stream().map(MigProfile::name).toList());
        continue;
      }
      MigProfile p = profile.get();
      if (want.getValue() > p.maxCount()) {
        errors.add(
            gpu
                + " holds at most "
                + p.maxCount()
                + " x "
                + p.name()
                + ", "
                + where
                + " asks for "
                + want.getValue()
                + hint(model, p));
      }
      if (p.mediaExtensions()) {
        mediaExtensions += want.getValue();
      }
      for (int i = 0; i < want.getValue(); i++) {
        instances.add(p);
      }
    }
    if (mediaExtensions > 1) {
      errors.add(
          gpu
              + " holds at most one media-extension (+me) instance, "
              + where
              + " asks for "
              + mediaExtensions
              + ": "
              + describe(
                  wanted.entrySet().stream()
                      .filter(
                          e ->
                              model
                                  .profile(e.getKey())
                                  .map(MigProfile::mediaExtensions)
                                  .orElse(false))
                      .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue))));
    }
    if (!errors.isEmpty()) {
      return new MigLayoutResult.Rejected(errors);
    }
    return MigPlacer.place(model.mig(), wanted)
        .<MigLayoutResult>map(MigLayoutResult.Fits::new)
        .orElseGet(
            () ->
                new MigLayoutResult.Rejected(
                    List.of(
                        describe(wanted)
                            + " does not fit "
                            + gpu
                            + " ("
                            + model.mig().computeSlices()
                            + " compute / "
                            + model.mig().memorySlices()
                            + " memory slices; uses "
                            + instances.stream().mapToInt(MigProfile::computeSlices).sum()
                            + " compute / "
                            + instances.stream().mapToInt(MigProfile::memorySlices).sum()
                            + " memory slices and no placement of the profiles' allowed starts"
                            + " avoids overlap): "
                            + where)));
  }

  // The usual mistake: taking the double-memory 1g profile for the single-slice one.
  private static String hint(GpuModel model, MigProfile profile) {
    if (!profile.kind().equals("1g-double")) {
      return "";
    }
    return model.mig().profiles().stream()
        .filter(p -> p.kind().equals("1g"))
        .findFirst()
        .map(
            single ->
                " ("
                    + profile.name()
                    + " is the double-memory 1g profile here; the single-slice 1g profile of "
                    + model.shortName()
                    + " is "
                    + single.name()
                    + ")")
        .orElse("");
  }

  static String describe(Map<String, Integer> counts) {
    return counts.entrySet().stream()
        .map(e -> e.getValue() + " x " + e.getKey())
        .collect(Collectors.joining(" + "));
  }
}
