package io.fleetwave.core.rollout.plan;

import io.fleetwave.core.driver.DriverVersion;
import io.fleetwave.core.mig.MigConfig;
import io.fleetwave.core.mig.MigConfigRegistry;
import io.fleetwave.core.selector.LabelSelector;
import io.fleetwave.events.gpu.GpuCatalog;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/** Checks a rollout request and reports every problem with its field, or returns it parsed. */
public final class RolloutSpecValidator {
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern PCI_ID = Pattern.compile("0[xX][0-9a-fA-F]{8}");

  private final GpuCatalog catalog;
  private final MigConfigRegistry migConfigs;

  public RolloutSpecValidator(GpuCatalog catalog, MigConfigRegistry migConfigs) {
    this.catalog = catalog;
    this.migConfigs = migConfigs;
  }

  /** Returns the parsed rollout, or throws {@link RolloutSpecException} listing every problem. */
  public ValidRollout check(RolloutSpec spec) {
    List<RolloutSpecProblem> problems = new ArrayList<>();
    if (spec == null) {
      throw new RolloutSpecException(List.of(new RolloutSpecProblem("", "the request is empty")));
    }
    if (spec.name() == null || !NAME.matcher(spec.name()).matches()) {
      problems.add(
          new RolloutSpecProblem(
              "name",
              "'"
                  + spec.name()
                  + "' is not a valid name: lower-case letters, digits and '-', at most 63"));
    }
    LabelSelector selector = target(spec.target(), problems);
    MigConfig migConfig = null;
    DriverVersion driverVersion = null;
    RolloutChange change = spec.change();
    if (change == null || (change.migConfig() == null && change.driverVersion() == null)) {
      problems.add(
          new RolloutSpecProblem("change", "set migConfig, driverVersion or both: nothing to do"));
    } else {
      if (change.migConfig() != null) {
        migConfig = migConfigs.find(change.migConfig()).orElse(null);
        if (migConfig == null) {
          problems.add(
              new RolloutSpecProblem(
                  "change.migConfig",
                  "no MIG config named '" + change.migConfig() + "' has been imported"));
        }
      }
      if (change.driverVersion() != null) {
        driverVersion =
            attempt(
                () -> DriverVersion.parse(change.driverVersion()),
                "change.driverVersion",
                problems);
      }
    }
    List<Quantity> waves = new ArrayList<>();
    Quantity maxUnavailable = null;
    RolloutStrategy strategy = spec.strategy();
    if (strategy == null) {
      problems.add(new RolloutSpecProblem("strategy", "strategy is required (at least waves)"));
    } else {
      waves = waves(strategy.waves(), problems);
      maxUnavailable =
          attempt(
              () -> Quantity.parse(strategy.maxUnavailable(), "maxUnavailable", 1),
              "strategy.maxUnavailable",
              problems);
      strategy(strategy, problems);
    }
    if (!problems.isEmpty()) {
      throw new RolloutSpecException(problems);
    }
    return new ValidRollout(spec, selector, waves, maxUnavailable, migConfig, driverVersion);
  }

  private LabelSelector target(RolloutTarget target, List<RolloutSpecProblem> problems) {
    if (target == null) {
      problems.add(
          new RolloutSpecProblem(
              "target", "target is required; use {\"allNodes\": true} for the whole fleet"));
      return null;
    }
    if (target.isEmpty() && !target.allNodes()) {
      problems.add(
          new RolloutSpecProblem(
              "target",
              "empty target: name nodes by selector, gpuModels, hostKinds or nodes, or set"
                  + " allNodes: true to target the whole fleet"));
    }
    if (!target.isEmpty() && target.allNodes()) {
      problems.add(
          new RolloutSpecProblem(
              "target.allNodes",
              "allNodes: true targets the whole fleet and cannot be combined with other target"
                  + " fields"));
    }
    for (String model : target.gpuModels()) {
      if (!PCI_ID.matcher(model).matches() && catalog.find(model).isEmpty()) {
        problems.add(
            new RolloutSpecProblem(
                "target.gpuModels",
                "'" + model + "' is neither a PCI device id (0x233010DE) nor a known GPU model"));
      }
    }
    if (new HashSet<>(target.nodes()).size() != target.nodes().size()) {
      problems.add(new RolloutSpecProblem("target.nodes", "a node is listed twice"));
    }
    return attempt(() -> LabelSelector.parse(target.selector()), "target.selector", problems);
  }

  private static List<Quantity> waves(List<String> specs, List<RolloutSpecProblem> problems) {
    if (specs.isEmpty()) {
      problems.add(
          new RolloutSpecProblem(
              "strategy.waves", "at least one wave is required, e.g. [\"1\", \"10%\", \"100%\"]"));
      return List.of();
    }
    List<Quantity> waves = new ArrayList<>();
    for (int i = 0; i < specs.size(); i++) {
      String field = "strategy.waves[" + i + "]";
      int index = i;
      Quantity wave = attempt(() -> Quantity.parse(specs.get(index), "wave", 1), field, problems);
      if (wave == null) {
        continue;
      }
      // Waves are cumulative: each must reach further than the previous one of the same kind.
      for (Quantity earlier : waves) {
        if (earlier.getClass() == wave.getClass() && !reachesFurther(wave, earlier)) {
          problems.add(
              new RolloutSpecProblem(
                  field,
                  "waves are cumulative and must increase: '"
                      + wave
                      + "' does not exceed the earlier '"
                      + earlier
                      + "'"));
          break;
        }
      }
      waves.add(wave);
    }
    if (!waves.isEmpty()
        && waves.size() == specs.size()
        && !(waves.getLast() instanceof Quantity.Percent(int p) && p == 100)) {
      problems.add(
          new RolloutSpecProblem(
              "strategy.waves[" + (specs.size() - 1) + "]",
              "the last wave must be \"100%\" so that every targeted node is covered, found '"
                  + waves.getLast()
                  + "'"));
    }
    return waves;
  }

  private static boolean reachesFurther(Quantity later, Quantity earlier) {
    return switch (later) {
      case Quantity.Count(int c) -> c > ((Quantity.Count) earlier).count();
      case Quantity.Percent(int p) -> p > ((Quantity.Percent) earlier).percent();
    };
  }

  private static void strategy(RolloutStrategy strategy, List<RolloutSpecProblem> problems) {
    if (strategy.maxZonesInFlight() != null && strategy.maxZonesInFlight() < 1) {
      problems.add(
          new RolloutSpecProblem(
              "strategy.maxZonesInFlight",
              "must be at least 1 (or absent for no limit), found " + strategy.maxZonesInFlight()));
    }
    attempt(
        () -> {
          LabelSelector.checkKey(strategy.zoneLabel());
          return strategy.zoneLabel();
        },
        "strategy.zoneLabel",
        problems);
    gpuBudget(strategy, problems);
    if (strategy.soakSeconds() < 0) {
      problems.add(
          new RolloutSpecProblem(
              "strategy.soakSeconds", "must be 0 or more, found " + strategy.soakSeconds()));
    }
    if (strategy.nodeTimeoutSeconds() < 1) {
      problems.add(
          new RolloutSpecProblem(
              "strategy.nodeTimeoutSeconds",
              "must be at least 1, found " + strategy.nodeTimeoutSeconds()));
    }
    FailureThreshold threshold = strategy.failureThreshold();
    attempt(
        () -> Quantity.parse(threshold.perWave(), "perWave", 0),
        "strategy.failureThreshold.perWave",
        problems);
    attempt(
        () -> Quantity.parse(threshold.total(), "total", 0),
        "strategy.failureThreshold.total",
        problems);
    MaintenanceWindow window = strategy.maintenanceWindow();
    if (window != null) {
      LocalTime start =
          attempt(
              () -> LocalTime.parse(window.start()), "strategy.maintenanceWindow.start", problems);
      LocalTime end =
          attempt(() -> LocalTime.parse(window.end()), "strategy.maintenanceWindow.end", problems);
      if (start != null && start.equals(end)) {
        problems.add(
            new RolloutSpecProblem(
                "strategy.maintenanceWindow",
                "start and end are equal: the window would be empty"));
      }
      attempt(() -> ZoneId.of(window.timeZone()), "strategy.maintenanceWindow.timeZone", problems);
    }
  }

  private static void gpuBudget(RolloutStrategy strategy, List<RolloutSpecProblem> problems) {
    if (strategy.maxGpusOffline() != null && strategy.maxGpusOffline() < 1) {
      problems.add(
          new RolloutSpecProblem(
              "strategy.maxGpusOffline",
              "must be at least 1 GPU (or absent for no bound), found "
                  + strategy.maxGpusOffline()));
    }
    for (Map.Entry<String, Integer> bound : strategy.maxGpusOfflinePer().entrySet()) {
      String field = "strategy.maxGpusOfflinePer." + bound.getKey();
      attempt(
          () -> {
            LabelSelector.checkKey(bound.getKey());
            return bound.getKey();
          },
          field,
          problems);
      if (bound.getValue() == null || bound.getValue() < 1) {
        problems.add(
            new RolloutSpecProblem(
                field,
                "must be at least 1 GPU per value of label '"
                    + bound.getKey()
                    + "', found "
                    + bound.getValue()));
      }
    }
  }

  private static <T> T attempt(Supplier<T> parse, String field, List<RolloutSpecProblem> problems) {
    try {
      return parse.get();
    } catch (IllegalArgumentException | java.time.DateTimeException e) {
      problems.add(new RolloutSpecProblem(field, e.getMessage()));
      return null;
    } catch (NullPointerException e) {
      problems.add(new RolloutSpecProblem(field, "is required"));
      return null;
    }
  }
}
