package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The chart lints, renders, follows its namespaces and keeps the data at uninstall. */
class HelmChartTest {
  private static final String KEEP = "helm.sh/resource-policy";
  private static final Set<String> CLUSTER_SCOPED =
      Set.of("Namespace", "ClusterRole", "ClusterRoleBinding", "PriorityClass");

  @Test
  void lintsStrictlyWithDefaultValuesAndWithEveryHostKind() {
    assertThat(Helm.lint(Map.of()).stdoutIfSucceeded()).contains("0 chart(s) failed");
    assertThat(Helm.lint(Helm.everyHostKind()).stdoutIfSucceeded()).contains("0 chart(s) failed");
  }

  @Test
  void aMisspeltValueFailsLintAndInstallNamingIt() {
    Map<String, String> misspelt = Map.of("hostKinds.ubunto.enabled", "true");

    ExternalCommand.Result lint = Helm.lint(misspelt);
    ExternalCommand.Result template = Helm.templateResult("fleetwave", misspelt);

    assertThat(lint.exitCode()).isNotZero();
    assertThat(lint.stdout() + lint.stderr())
        .contains("hostKinds: Additional property ubunto is not allowed");
    assertThat(template.exitCode()).isNotZero();
    assertThat(template.stderr()).contains("hostKinds: Additional property ubunto is not allowed");
  }

  @Test
  void defaultValuesInstallTheControlPlaneAndNoAgent() {
    Rendered rendered = Helm.template("fleetwave", Map.of());

    assertThat(rendered.one(Deployment.class, "fleetwave-control-plane")).isNotNull();
    assertThat(rendered.custom("KafkaTopic")).hasSize(7);
    assertThat(rendered.custom("KafkaUser")).hasSize(2);
    assertThat(rendered.custom("Cluster")).hasSize(1);
    assertThat(rendered.all(DaemonSet.class)).isEmpty();
    assertThat(rendered.all(Namespace.class)).isEmpty();
  }

  @Test
  void everyHostKindGetsItsDaemonSetAndTheSharedObjectsOnceInTheAgentsNamespace() {
    Rendered rendered = Helm.template("fleetwave", Helm.everyHostKind());

    for (HostKind kind : HostKind.values()) {
      DaemonSet daemonSet = rendered.one(DaemonSet.class, "fleetwave-agent-" + kind.overlay);
      assertThat(daemonSet.getMetadata().getNamespace()).isEqualTo("fleetwave-agents");
      assertThat(daemonSet.getSpec().getSelector().getMatchLabels())
          .containsEntry("fleetwave.io/host-kind", kind.overlay);
    }
    assertThat(rendered.names())
        .containsOnlyOnce(
            "ServiceAccount/fleetwave-agent",
            "ClusterRole/fleetwave-agent",
            "ClusterRoleBinding/fleetwave-agent",
            "PriorityClass/fleetwave-node-critical",
            "ConfigMap/fleetwave-agent-kafka");
    Namespace agents = rendered.one(Namespace.class, "fleetwave-agents");
    assertThat(agents.getMetadata().getLabels())
        .containsEntry("pod-security.kubernetes.io/enforce", "privileged");
  }

  @Test
  void turningOneHostKindOffRemovesOnlyItsDaemonSet() {
    Map<String, String> withoutTalos = new TreeMap<>(Helm.everyHostKind());
    withoutTalos.put("hostKinds.talos.enabled", "false");

    List<String> all = keys(Helm.template("fleetwave", Helm.everyHostKind()));
    all.removeAll(keys(Helm.template("fleetwave", withoutTalos)));

    assertThat(all).containsExactly("DaemonSet fleetwave-agents/fleetwave-agent-talos");
  }

  @Test
  void everyFieldOfEveryBuiltInResourceIsOneKubernetesKnows() {
    List<String> unknown = new ArrayList<>();
    for (HasMetadata r : Helm.template("fleetwave", everything()).resources()) {
      UnknownFields.of(r)
          .forEach(f -> unknown.add(r.getKind() + "/" + r.getMetadata().getName() + " " + f));
    }
    assertThat(unknown).as("fields fabric8's model does not know (misspelt?)").isEmpty();
  }

  @Test
  void anotherNamespaceLeavesNoFleetwaveNamespaceAnywhere() {
    Rendered rendered = Helm.template("gpu-fleet", Helm.everyHostKind());

    for (HasMetadata r : rendered.resources()) {
      String namespace = r.getMetadata().getNamespace();
      if (CLUSTER_SCOPED.contains(r.getKind())) {
        assertThat(namespace).as(r.getKind() + "/" + r.getMetadata().getName()).isNull();
      } else {
        assertThat(namespace)
            .as(r.getKind() + "/" + r.getMetadata().getName())
            .isIn("gpu-fleet", "gpu-fleet-agents");
      }
    }
    String yaml = Helm.templateResult("gpu-fleet", Helm.everyHostKind()).stdoutIfSucceeded();
    assertThat(yaml)
        .doesNotContain(
            ".fleetwave.svc", ":fleetwave:", "namespace: fleetwave", "metadata.name: fleetwave\n");
    assertThat(
            env(
                rendered.mainContainer(Deployment.class, "fleetwave-control-plane").getEnv(),
                "FLEETWAVE_NODE_IDENTITY_SERVICE_ACCOUNTS"))
        .isEqualTo("system:serviceaccount:gpu-fleet-agents:fleetwave-agent");
    List<EnvVar> agentEnv =
        rendered.mainContainer(DaemonSet.class, "fleetwave-agent-ubuntu").getEnv();
    assertThat(env(agentEnv, "FLEETWAVE_CONTROL_PLANE_URL"))
        .isEqualTo("http://fleetwave-control-plane.gpu-fleet.svc:8080");
    assertThat(env(agentEnv, "FLEETWAVE_KAFKA_BOOTSTRAP"))
        .isEqualTo("fleetwave-kafka-bootstrap.gpu-fleet.svc:9093");
    assertThat(rendered.one(ClusterRoleBinding.class, "fleetwave-agent").getSubjects())
        .allSatisfy(s -> assertThat(s.getNamespace()).isEqualTo("gpu-fleet-agents"));
    assertThat(rendered.one(ClusterRoleBinding.class, "fleetwave-control-plane").getSubjects())
        .allSatisfy(s -> assertThat(s.getNamespace()).isEqualTo("gpu-fleet"));
  }

  @Test
  void theAgentsNamespaceValueNamesTheAgentsNamespace() {
    Map<String, String> values = new TreeMap<>(Helm.everyHostKind());
    values.put("agentsNamespace.name", "gpu-agents");
    Rendered rendered = Helm.template("fleetwave", values);

    assertThat(rendered.one(DaemonSet.class, "fleetwave-agent-cos").getMetadata().getNamespace())
        .isEqualTo("gpu-agents");
    assertThat(
            env(
                rendered.mainContainer(Deployment.class, "fleetwave-control-plane").getEnv(),
                "FLEETWAVE_NODE_IDENTITY_SERVICE_ACCOUNTS"))
        .isEqualTo("system:serviceaccount:gpu-agents:fleetwave-agent");
  }

  @Test
  void uninstallKeepsEveryTopicAndTheDatabaseAndNothingElse() {
    List<String> kept = new ArrayList<>();
    for (HasMetadata r : Helm.template("fleetwave", everything()).resources()) {
      Map<String, String> annotations = r.getMetadata().getAnnotations();
      if (annotations != null && "keep".equals(annotations.get(KEEP))) {
        kept.add(r.getKind() + "/" + r.getMetadata().getName());
      }
    }
    assertThat(kept)
        .containsExactlyInAnyOrder(
            "KafkaTopic/fleet.node-events",
            "KafkaTopic/fleet.node-events.dlq",
            "KafkaTopic/fleet.node-desired",
            "KafkaTopic/fleet.node-snapshots",
            "KafkaTopic/fleet.node-commands",
            "KafkaTopic/fleet.rollout-events",
            "KafkaTopic/fleet.control-facts",
            "Cluster/fleetwave-db",
            "ObjectStore/fleetwave-db-backup");
  }

  @Test
  @SuppressWarnings("unchecked")
  void backupsAreOffByDefaultAndOnGoThroughTheBarmanCloudPlugin() {
    Rendered off = Helm.template("fleetwave", Map.of());
    assertThat(off.custom("ScheduledBackup")).isEmpty();
    assertThat(Rendered.field(off.custom("Cluster", "fleetwave-db"), "spec"))
        .doesNotContainKey("plugins");

    Rendered on = Helm.template("fleetwave", backupValues());
    Map<String, Object> schedule =
        Rendered.field(on.custom("ScheduledBackup", "fleetwave-db"), "spec");
    assertThat(schedule)
        .containsEntry("method", "plugin")
        .containsEntry("pluginConfiguration", Map.of("name", "barman-cloud.cloudnative-pg.io"))
        .containsEntry("cluster", Map.of("name", "fleetwave-db"));
    List<Map<String, Object>> plugins =
        (List<Map<String, Object>>)
            Rendered.field(on.custom("Cluster", "fleetwave-db"), "spec").get("plugins");
    assertThat(plugins)
        .containsExactly(
            Map.of(
                "name",
                "barman-cloud.cloudnative-pg.io",
                "isWALArchiver",
                true,
                "parameters",
                Map.of("barmanObjectName", "fleetwave-db-backup")));
    GenericKubernetesResource store = on.custom("ObjectStore", "fleetwave-db-backup");
    assertThat(store.getApiVersion()).isEqualTo("barmancloud.cnpg.io/v1");
    assertThat(Rendered.field(store, "spec").get("configuration"))
        .isEqualTo(Map.of("destinationPath", "s3://backups/fleetwave"));
  }

  @Test
  void backupsWithoutAnObjectStoreFailWithAClearMessage() {
    ExternalCommand.Result result =
        Helm.templateResult("fleetwave", Map.of("postgres.backup.enabled", "true"));

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.stderr())
        .contains("postgres.backup.enabled needs postgres.backup.objectStore.destinationPath");
  }

  @Test
  @SuppressWarnings("unchecked")
  void aRestoreBootstrapsTheClusterFromTheArchiveAndArchivesUnderANewName() {
    Map<String, String> values = new TreeMap<>(backupValues());
    values.put("postgres.recovery.enabled", "true");
    values.put("postgres.recovery.targetTime", "2026-12-04 18:00:00+00");
    values.put("postgres.backup.serverName", "fleetwave-db-2");

    Map<String, Object> spec =
        Rendered.field(
            Helm.template("fleetwave", values).custom("Cluster", "fleetwave-db"), "spec");

    assertThat(spec.get("bootstrap"))
        .isEqualTo(
            Map.of(
                "recovery",
                Map.of(
                    "source",
                    "archived",
                    "recoveryTarget",
                    Map.of("targetTime", "2026-12-04 18:00:00+00"))));
    assertThat(spec.get("externalClusters"))
        .isEqualTo(
            List.of(
                Map.of(
                    "name",
                    "archived",
                    "plugin",
                    Map.of(
                        "name",
                        "barman-cloud.cloudnative-pg.io",
                        "parameters",
                        Map.of(
                            "barmanObjectName", "fleetwave-db-backup",
                            "serverName", "fleetwave-db")))));
    Map<String, Object> plugin = ((List<Map<String, Object>>) spec.get("plugins")).getFirst();
    assertThat((Map<String, Object>) plugin.get("parameters"))
        .containsEntry("serverName", "fleetwave-db-2");
  }

  @Test
  void aRestoreThatWouldArchiveIntoItsOwnSourceFailsWithAClearMessage() {
    Map<String, String> values = new TreeMap<>(backupValues());
    values.put("postgres.recovery.enabled", "true");

    ExternalCommand.Result result = Helm.templateResult("fleetwave", values);

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.stderr())
        .contains("set postgres.backup.serverName to a new name (e.g. fleetwave-db-2)");
  }

  @Test
  void oneHostKindCanBeHeldAtAnotherAgentImage() {
    Map<String, String> values = new TreeMap<>(Helm.everyHostKind());
    values.put("hostKinds.talos.tag", "0.0.9");
    Rendered rendered = Helm.template("fleetwave", values);

    for (HostKind kind : HostKind.values()) {
      String image =
          rendered.mainContainer(DaemonSet.class, "fleetwave-agent-" + kind.overlay).getImage();
      assertThat(image)
          .isEqualTo(
              "fleetwave/node-agent:"
                  + (kind == HostKind.TALOS ? "0.0.9" : ImageVersionsTest.releaseVersion()));
    }
  }

  @Test
  void theChartAndItsImagesCarryTheDeclaredRelease() throws IOException {
    // deploy/RELEASE_VERSION, as every manifest (ImageVersionsTest; docs/release.md): a release,
    // never the poms' development version, because the images are pulled IfNotPresent.
    String version = ImageVersionsTest.releaseVersion();
    String chart = Files.readString(Helm.chartDir().resolve("Chart.yaml"));
    assertThat(field(chart, "version")).isEqualTo(version);
    assertThat(field(chart, "appVersion")).isEqualTo(version);

    Rendered rendered = Helm.template("fleetwave", Helm.everyHostKind());
    assertThat(rendered.mainContainer(Deployment.class, "fleetwave-control-plane").getImage())
        .isEqualTo("fleetwave/control-plane:" + version);
    assertThat(rendered.mainContainer(DaemonSet.class, "fleetwave-agent-talos").getImage())
        .isEqualTo("fleetwave/node-agent:" + version);
  }

  @Test
  void aRegistryAndADigestMakeTheImageReference() {
    String digest = "sha256:" + "ab".repeat(32);
    Rendered rendered =
        Helm.template(
            "fleetwave",
            Map.of(
                "image.registry", "registry.example.com",
                "image.controlPlane.digest", digest,
                "image.controlPlane.tag", "9.9.9"));

    assertThat(rendered.mainContainer(Deployment.class, "fleetwave-control-plane").getImage())
        .isEqualTo("registry.example.com/fleetwave/control-plane@" + digest);
  }

  /** Every host kind's agents and the database's backups: the chart with all it can render. */
  private static Map<String, String> everything() {
    Map<String, String> values = new TreeMap<>(Helm.everyHostKind());
    values.putAll(backupValues());
    return values;
  }

  private static Map<String, String> backupValues() {
    return Map.of(
        "postgres.backup.enabled", "true",
        "postgres.backup.objectStore.destinationPath", "s3://backups/fleetwave");
  }

  private static List<String> keys(Rendered rendered) {
    return new ArrayList<>(rendered.resources().stream().map(InstallContent::key).toList());
  }

  private static String env(List<EnvVar> env, String name) {
    return env.stream()
        .filter(e -> e.getName().equals(name))
        .map(EnvVar::getValue)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + name + " in " + env));
  }

  private static String field(String chartYaml, String name) {
    Matcher matcher =
        Pattern.compile("(?m)^" + name + ":\\s*\"?([^\"\\s]+)\"?\\s*$").matcher(chartYaml);
    if (!matcher.find()) {
      throw new AssertionError("Chart.yaml has no " + name);
    }
    return matcher.group(1);
  }
}
