package io.fleetwave.events.spec;

import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.gpu.MigPlacer;
import io.fleetwave.events.gpu.MigProfile;
import io.fleetwave.events.gpu.VgpuType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The rules a GPU's spec must obey on its GPU, the one home for them: the control plane's API lists
 * every violation (problem+json, one entry per field), the node agent refuses a spec at the first
 * one. Checked against the catalogue model and what the node reports of the GPU: catalogue
 * membership, instance counts, MIG capability, profile names, per-profile maximum counts, one
 * media-extension instance, fit ({@link MigPlacer}), SR-IOV and VF count, vGPU types, the GPU
 * instances MIG-backed types need (hardware-model.md rule 5) and time-sliced limits.
 *
 * <p>Dependent checks are skipped where an earlier one already failed (no fit is computed for an
 * unknown profile), so each violation is a separate thing to fix. Pure.
 */
public final class GpuSpecRules {

  /**
   * What the node reports of the GPU, next to its catalogue model.
   *
   * @param migCapable whether the GPU reports MIG capability (the catalogue model must agree)
   * @param vfsTotal virtual functions the host offers for it (0: no SR-IOV driver here)
   */
  public record GpuFacts(String product, String pciDeviceId, boolean migCapable, int vfsTotal) {}

  private GpuSpecRules() {}

  /** Every violation of a spec that is already a well-formed {@link GpuSpec}. */
  public static List<SpecViolation> check(GpuModel model, GpuFacts gpu, GpuSpec spec) {
    return check(model, gpu, spec.migEnabled(), spec.instances(), spec.vfs(), spec.vgpuTypes());
  }

  /**
   * Every violation, in the order MIG, VFs, vGPU types; empty when the spec can be applied.
   *
   * @param model the GPU's catalogue model, or null when the catalogue does not know it
   */
  public static List<SpecViolation> check(
      GpuModel model,
      GpuFacts gpu,
      boolean migEnabled,
      Map<String, Integer> instances,
      int vfs,
      Map<Integer, String> vgpuTypes) {
    List<SpecViolation> violations = new ArrayList<>();
    if (model == null) {
      if (migEnabled || !instances.isEmpty() || vfs > 0 || !vgpuTypes.isEmpty()) {
        violations.add(
            new SpecViolation(
                "index",
                gpu.product()
                    + " ("
                    + gpu.pciDeviceId()
                    + ") is not in the GPU catalogue, so no MIG layout, VFs or vGPU types can be"
                    + " checked for it"));
      }
      return violations;
    }
    checkMig(model, gpu, migEnabled, instances, violations);
    checkVfs(model, gpu, vfs, violations);
    checkVgpuTypes(model, gpu, migEnabled, instances, vfs, vgpuTypes, violations);
    return violations;
  }

  /**
   * The layout rules alone, for a MIG-capable model and positive counts: profile names, maximum
   * counts, one media-extension instance, and that the instances can be placed. Fields are {@code
   * instances} or {@code instances.<profile>}.
   */
  public static List<SpecViolation> migLayout(GpuModel model, Map<String, Integer> instances) {
    List<SpecViolation> violations = new ArrayList<>();
    Map<String, Integer> wanted = new LinkedHashMap<>(); // in the caller's order, for messages
    instances.forEach(
        (name, count) -> {
          if (count > 0) {
            wanted.put(name, count);
          }
        });
    String gpu = model.shortName();
    boolean allKnown = true;
    Map<String, Integer> mediaExtensions = new LinkedHashMap<>();
    for (Map.Entry<String, Integer> want : wanted.entrySet()) {
      String field = "instances." + want.getKey();
      Optional<MigProfile> found = model.profile(want.getKey());
      if (found.isEmpty()) {
        allKnown = false;
        violations.add(
            new SpecViolation(
                field,
                "profile "
                    + want.getKey()
                    + " does not exist on "
                    + gpu
                    + "; its profiles are "
                    + model.mig().profiles().stream().map(MigProfile::name).toList()));
        continue;
      }
      MigProfile profile = found.get();
      if (want.getValue() > profile.maxCount()) {
        violations.add(
            new SpecViolation(
                field,
                gpu
                    + " holds at most "
                    + profile.maxCount()
                    + " x "
                    + profile.name()
                    + ", "
                    + want.getValue()
                    + " asked"
                    + doubleMemoryHint(model, profile)));
      }
      if (profile.mediaExtensions()) {
        mediaExtensions.put(profile.name(), want.getValue());
      }
    }
    int mediaExtensionCount = mediaExtensions.values().stream().mapToInt(Integer::intValue).sum();
    if (mediaExtensionCount > 1) {
      violations.add(
          new SpecViolation(
              "instances",
              gpu
                  + " holds at most one media-extension (+me) instance, "
                  + mediaExtensionCount
                  + " asked: "
                  + describe(mediaExtensions)));
    }
    if (allKnown && violations.isEmpty() && MigPlacer.place(model.mig(), wanted).isEmpty()) {
      violations.add(new SpecViolation("instances", doesNotFit(model, wanted)));
    }
    return violations;
  }

  /** {@code 2 x 3g.40gb + 1 x 1g.10gb}, in the map's order. */
  public static String describe(Map<String, Integer> counts) {
    return counts.entrySet().stream()
        .map(e -> e.getValue() + " x " + e.getKey())
        .collect(Collectors.joining(" + "));
  }

  private static void checkMig(
      GpuModel model,
      GpuFacts gpu,
      boolean migEnabled,
      Map<String, Integer> instances,
      List<SpecViolation> violations) {
    boolean countsPositive = true;
    for (Map.Entry<String, Integer> count : instances.entrySet()) {
      if (count.getValue() == null || count.getValue() <= 0) {
        countsPositive = false;
        violations.add(
            new SpecViolation(
                "instances." + count.getKey(), "count must be positive, got " + count.getValue()));
      }
    }
    if (!migEnabled) {
      if (!instances.isEmpty()) {
        violations.add(
            new SpecViolation("instances", "GPU instances " + instances + " asked with MIG off"));
      }
      return;
    }
    if (!gpu.migCapable() || !model.migCapable()) {
      violations.add(new SpecViolation("migEnabled", gpu.product() + " is not MIG capable"));
      return;
    }
    if (countsPositive) {
      violations.addAll(migLayout(model, instances));
    }
  }

  private static void checkVfs(
      GpuModel model, GpuFacts gpu, int vfs, List<SpecViolation> violations) {
    if (vfs < 0) {
      violations.add(new SpecViolation("vfs", "must not be negative, got " + vfs));
    } else if (vfs > 0 && !model.sriovCapable()) {
      violations.add(new SpecViolation("vfs", gpu.product() + " has no SR-IOV virtual functions"));
    } else if (vfs > gpu.vfsTotal()) {
      violations.add(
          new SpecViolation(
              "vfs",
              "the host offers "
                  + gpu.vfsTotal()
                  + " VFs, "
                  + vfs
                  + " asked"
                  + (gpu.vfsTotal() == 0 ? " (SR-IOV needs the vGPU host driver)" : "")));
    }
  }

  private static void checkVgpuTypes(
      GpuModel model,
      GpuFacts gpu,
      boolean migEnabled,
      Map<String, Integer> instances,
      int vfs,
      Map<Integer, String> types,
      List<SpecViolation> violations) {
    Map<String, Integer> perProfile = new HashMap<>();
    Map<String, Integer> perTimeSliced = new HashMap<>();
    for (Map.Entry<Integer, String> entry : new TreeMap<>(types).entrySet()) {
      int vf = entry.getKey();
      String field = "vgpuTypes." + vf;
      if (vf < 0 || vf >= vfs) {
        violations.add(
            new SpecViolation(
                field,
                "VF " + vf + " will not exist: vfs is " + vfs + " (VFs are numbered from 0)"));
        continue;
      }
      Optional<VgpuType> found =
          entry.getValue() == null ? Optional.empty() : model.vgpuType(entry.getValue());
      if (found.isEmpty()) {
        violations.add(
            new SpecViolation(
                field,
                "'"
                    + entry.getValue()
                    + "' is not a vGPU type of "
                    + gpu.product()
                    + "; creatable types are "
                    + model.vgpuTypes().stream().map(VgpuType::name).toList()));
        continue;
      }
      VgpuType type = found.get();
      if (type.migBacked()) {
        int using = perProfile.merge(type.migProfile(), 1, Integer::sum);
        int available = migEnabled ? instances.getOrDefault(type.migProfile(), 0) : 0;
        if (using > available) {
          violations.add(
              new SpecViolation(
                  field,
                  type.name()
                      + " needs its own "
                      + type.migProfile()
                      + " GPU instance (rule 5); the spec has "
                      + available
                      + (migEnabled ? "" : " (MIG is off)")
                      + " for "
                      + using
                      + " VFs of that type"));
        }
      } else if (migEnabled) {
        violations.add(
            new SpecViolation(
                field, "time-sliced type " + type.name() + " cannot be used with MIG enabled"));
      } else if (perTimeSliced.merge(type.name(), 1, Integer::sum) > type.maxPerGpu()) {
        violations.add(
            new SpecViolation(
                field,
                gpu.product()
                    + " holds at most "
                    + type.maxPerGpu()
                    + " x "
                    + type.name()
                    + " (VF "
                    + vf
                    + " is one too many)"));
      }
    }
  }

  private static String doesNotFit(GpuModel model, Map<String, Integer> wanted) {
    int compute = 0;
    int memory = 0;
    for (Map.Entry<String, Integer> want : wanted.entrySet()) {
      MigProfile profile = model.profile(want.getKey()).orElseThrow();
      compute += profile.computeSlices() * want.getValue();
      memory += profile.memorySlices() * want.getValue();
    }
    return describe(wanted)
        + " does not fit "
        + model.shortName()
        + " ("
        + model.mig().computeSlices()
        + " compute / "
        + model.mig().memorySlices()
        + " memory slices; uses "
        + compute
        + " compute / "
        + memory
        + " memory slices and no placement of the profiles' allowed starts avoids overlap)";
  }

  // The usual mistake: taking the double-memory 1g profile for the single-slice one.
  private static String doubleMemoryHint(GpuModel model, MigProfile profile) {
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
}
