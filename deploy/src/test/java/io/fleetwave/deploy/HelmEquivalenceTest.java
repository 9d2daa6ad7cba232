package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart and the Kustomize tree are one install: rendered with the same settings they give the
 * same objects with the same content, so neither can change without the other.
 *
 * <p>The Kustomize install is the layout of deploy/README.md: deploy/install (control plane and its
 * backing resources in the namespace fleetwave), deploy/agent/shared and every agent overlay (in
 * fleetwave-agents). deploy/namespace is not part of it (it is applied once and never deleted); the
 * chart's counterpart, agentsNamespace.create, is off here.
 */
class HelmEquivalenceTest {
  /** The Kustomize directories that make the whole install. */
  static List<String> kustomizeInstall() {
    List<String> dirs = new ArrayList<>(List.of("install", "agent/shared"));
    for (HostKind kind : HostKind.values()) {
      dirs.add(kind.dir());
    }
    return dirs;
  }

  /** The chart's values equal to the Kustomize install: every host kind, monitoring on. */
  static Map<String, String> equalSettings() {
    Map<String, String> values = new TreeMap<>(Helm.everyHostKind());
    values.put("agentsNamespace.create", "false");
    values.put("monitoring.enabled", "true");
    return values;
  }

  @Test
  void theChartRendersTheSameObjectsWithTheSameContentAsTheKustomizeInstall() {
    InstallContent kustomize =
        InstallContent.of(kustomizeInstall().stream().map(Kustomize::render).toList());
    InstallContent chart = InstallContent.of(List.of(Helm.template("fleetwave", equalSettings())));

    assertThat(chart.differencesFrom(kustomize, "chart", "kustomize"))
        .as(
            "the chart deploy/helm/fleetwave and the Kustomize install (%s) differ; change both"
                + " together",
            kustomizeInstall())
        .isEmpty();
  }

  @Test
  void withTheKubernetesJobExecutorTheChartRendersWhatTheKustomizeComponentAdds(
      @TempDir Path workspace) {
    List<Rendered> renders = new ArrayList<>();
    renders.add(
        Kustomize.render(
            ComponentOverlay.write(workspace, "install", List.of(RbacTest.JOB_EXECUTOR))));
    kustomizeInstall().stream()
        .filter(dir -> !dir.equals("install"))
        .map(Kustomize::render)
        .forEach(renders::add);
    Map<String, String> values = new TreeMap<>(equalSettings());
    values.put("controlPlane.driverExecutor", "kubernetes-job");
    InstallContent chart = InstallContent.of(List.of(Helm.template("fleetwave", values)));

    assertThat(chart.differencesFrom(InstallContent.of(renders), "chart", "kustomize"))
        .as(
            "controlPlane.driverExecutor=kubernetes-job and the component %s differ; change both"
                + " together",
            RbacTest.JOB_EXECUTOR)
        .isEmpty();
  }

  @Test
  void theComparisonSeesAChangedValueAndAMissingObject() {
    InstallContent defaults =
        InstallContent.of(List.of(Helm.template("fleetwave", equalSettings())));
    Map<String, String> changed = new TreeMap<>(equalSettings());
    changed.put("controlPlane.replicas", "3");
    changed.put("hostKinds.cos.enabled", "false");
    InstallContent other = InstallContent.of(List.of(Helm.template("fleetwave", changed)));

    assertThat(defaults.differencesFrom(other, "a", "b"))
        .containsExactlyInAnyOrder(
            "DaemonSet fleetwave-agents/fleetwave-agent-cos: only in a",
            "Deployment fleetwave/fleetwave-control-plane.spec.replicas: {a=2, b=3}");
  }
}
