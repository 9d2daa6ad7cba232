package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecretVolumeSource;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fleetwave.agent.AgentMain;
import io.fleetwave.agent.health.Probe;
import io.fleetwave.agent.kafka.KafkaConfigFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What each agent overlay gives the agent on its kind of host, and what all of them share. */
class AgentOverlaysTest {
  private static final String HOST_KIND_LABEL = "fleetwave.io/host-kind";

  @Test
  void theHostKindsUnderTestAreExactlyTheOverlaysOnDisk() throws IOException {
    Set<String> onDisk;
    try (Stream<Path> dirs = Files.list(Kustomize.deployDir().resolve("agent/overlays"))) {
      onDisk = dirs.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
    }
    assertThat(onDisk)
        .as("an overlay without tests here, or a host kind without an overlay")
        .containsExactlyInAnyOrderElementsOf(
            Arrays.stream(HostKind.values()).map(k -> k.overlay).toList());
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentTakesItsNodeNameFromTheDownwardApi(HostKind kind) {
    EnvVar nodeName =
        AgentOverlay.of(kind)
            .env("NODE_NAME")
            .orElseThrow(() -> new AssertionError(kind.dir() + ": no NODE_NAME"));
    assertThat(nodeName.getValue()).isNull();
    assertThat(nodeName.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName");
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentToleratesGpuTaintsAndNodesThatAreNotReadyUnreachableOrCordoned(HostKind kind) {
    List<Toleration> tolerations = AgentOverlay.of(kind).pod().getTolerations();
    assertThat(tolerations)
        .extracting(Toleration::getKey, Toleration::getOperator, Toleration::getEffect)
        .contains(
            tuple("nvidia.com/gpu", "Exists", "NoSchedule"),
            tuple("node.kubernetes.io/not-ready", "Exists", "NoExecute"),
            tuple("node.kubernetes.io/unreachable", "Exists", "NoExecute"),
            tuple("node.kubernetes.io/unschedulable", "Exists", "NoSchedule"));
    assertThat(tolerations)
        .as("a toleration with a time limit would evict the agent from an unreachable node")
        .allSatisfy(t -> assertThat(t.getTolerationSeconds()).isNull());
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentRunsAtFleetwavesNodeCriticalPriorityWhichIsInstalledWithIt(HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    assertThat(agent.pod().getPriorityClassName()).isEqualTo("fleetwave-node-critical");
    PriorityClass priority =
        AgentOverlay.shared().one(PriorityClass.class, "fleetwave-node-critical");
    assertThat(priority.getValue())
        .as(
            "above workloads, within the range user classes may use (the system-* classes are 2e9+)")
        .isBetween(1_000_000, 1_000_000_000);
    assertThat(priority.getGlobalDefault()).isNotEqualTo(true);
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentRequestsItsMeasuredFootprintAndCapsItsMemory(HostKind kind) {
    ResourceRequirements resources = AgentOverlay.of(kind).agent().getResources();
    assertThat(resources.getRequests())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("cpu", new Quantity("50m"), "memory", new Quantity("128Mi")));
    assertThat(resources.getLimits())
        .as(
            "memory capped at 192Mi (RSS 105-110 MB measured in a pod, about 140 MB with a full"
                + " heap; simulator/BENCH.md); no CPU limit to be throttled by")
        .containsExactlyInAnyOrderEntriesOf(Map.of("memory", new Quantity("192Mi")));
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentIsProbedOnItsMetricsPortAtThePathsTheAgentServes(HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    ContainerPort metrics =
        agent.agent().getPorts().stream()
            .filter(p -> "metrics".equals(p.getName()))
            .findFirst()
            .orElseThrow(() -> new AssertionError(kind.dir() + ": no port named metrics"));
    assertThat(agent.envValue("FLEETWAVE_METRICS_PORT"))
        .as("the probes ride on the metrics port, which the agent opens only when it is set")
        .isEqualTo(String.valueOf(metrics.getContainerPort()));
    Map<Probe, io.fabric8.kubernetes.api.model.Probe> probes =
        Map.of(
            Probe.STARTUP, agent.agent().getStartupProbe(),
            Probe.LIVENESS, agent.agent().getLivenessProbe(),
            Probe.READINESS, agent.agent().getReadinessProbe());
    probes.forEach(
        (probe, declared) -> {
          assertThat(declared).as(kind.dir() + ": " + probe + " probe").isNotNull();
          assertThat(declared.getHttpGet()).as(kind.dir() + ": " + probe).isNotNull();
          assertThat(declared.getHttpGet().getPath()).as(probe.name()).isEqualTo(probe.path());
          assertThat(declared.getHttpGet().getPort().getStrVal()).isEqualTo("metrics");
          assertThat(declared.getHttpGet().getScheme()).isIn(null, "HTTP");
          assertThat(declared.getTimeoutSeconds())
              .as("an answer read from memory; more than the 1 s default for a GC pause")
              .isGreaterThanOrEqualTo(2);
        });
    io.fabric8.kubernetes.api.model.Probe startup = probes.get(Probe.STARTUP);
    assertThat(
            Duration.ofSeconds((long) startup.getPeriodSeconds() * startup.getFailureThreshold()))
        .as(
            "the kubelet must not kill a start the agent would still finish: its enrolment waits"
                + " up to "
                + AgentMain.ENROLMENT_PATIENCE
                + ", its other start steps are bounded in seconds")
        .isGreaterThanOrEqualTo(AgentMain.ENROLMENT_PATIENCE.plusMinutes(1));
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentSharesTheHostPidNamespaceToNameWhoHoldsAGpu(HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    assertThat(agent.pod().getHostPID()).isTrue();
    assertThat(agent.pod().getHostNetwork())
        .as("the agent only connects out to Kafka and the API server")
        .isNotEqualTo(true);
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentIsPrivilegedForNvmlButNeverWritesItsImage(HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    SecurityContext context = agent.agent().getSecurityContext();
    assertThat(context.getPrivileged()).isTrue();
    assertThat(context.getReadOnlyRootFilesystem()).isTrue();
    Volume tmp = agent.volumeAt("/tmp");
    assertThat(tmp.getEmptyDir()).as("the JVM's scratch space").isNotNull();
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentRestartsFromAClassArchiveItWroteItselfInAPodPrivateVolume(HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    assertThat(agent.envValue("JDK_JAVA_OPTIONS").split("\\s+"))
        .contains(
            "-XX:+AutoCreateSharedArchive",
            "-XX:SharedArchiveFile=/var/cache/fleetwave-agent/agent.jsa");
    assertThat(agent.mountAt("/var/cache/fleetwave-agent").orElseThrow().getReadOnly())
        .as("the JVM writes the archive at the exit of the first start")
        .isNotEqualTo(true);
    Volume archive = agent.volumeAt("/var/cache/fleetwave-agent");
    assertThat(archive.getEmptyDir())
        .as("written only by this container: never a host path another process could write")
        .isNotNull();
    assertThat(archive.getHostPath()).isNull();
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentSeesTheHostRootAtHostAndIsToldWhereItIs(HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    assertThat(agent.envValue("FLEETWAVE_HOST_ROOT")).isEqualTo("/host");
    AgentOverlay.HostPathMount root =
        agent
            .hostPathMount("/")
            .orElseThrow(() -> new AssertionError(kind.dir() + ": the host root is not mounted"));
    assertThat(root.mount().getMountPath()).isEqualTo("/host");
    assertThat(root.mount().getReadOnly())
        .as("the overlays make writable only what a host kind lets the agent write")
        .isTrue();
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyHostPathIsMountedUnderHostAtItsOwnPathSoTheAgentFindsIt(HostKind kind) {
    assertThat(AgentOverlay.of(kind).hostPathMounts())
        .allSatisfy(
            m ->
                assertThat(m.mount().getMountPath())
                    .as("hostPath %s", m.hostPath().getPath())
                    .isEqualTo(
                        m.hostPath().getPath().equals("/")
                            ? "/host"
                            : "/host" + m.hostPath().getPath()));
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentWritesOnlyTheHostPathsItsHostKindAllows(HostKind kind) {
    Set<String> expected =
        switch (kind) {
          case UBUNTU, DRIVER_CONTAINER -> Set.of("/var/lib/fleetwave");
          case VGPU_HOST -> Set.of("/var/lib/fleetwave", "/sys");
          case TALOS, COS -> Set.of();
        };
    assertThat(
            AgentOverlay.of(kind).hostPathMounts().stream()
                .filter(AgentOverlay.HostPathMount::writable)
                .map(m -> m.hostPath().getPath()))
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentEnrollsWithAShortLivedTokenProjectedForTheAudienceTheControlPlaneAsksFor(
      HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    String tokenFile = agent.envValue("FLEETWAVE_SERVICE_ACCOUNT_TOKEN");
    Volume volume = agent.volumeAt(parent(tokenFile));
    assertThat(volume.getProjected())
        .as("%s: the enrolment token must be a projected volume, not the pod's default token", kind)
        .isNotNull();
    var token = volume.getProjected().getSources().getFirst().getServiceAccountToken();
    assertThat(parent(tokenFile) + "/" + token.getPath()).isEqualTo(tokenFile);
    // The least Kubernetes issues; the kubelet renews it before it ends.
    assertThat(token.getExpirationSeconds()).isEqualTo(600L);
    var controlPlane =
        Kustomize.render("install")
            .one(io.fabric8.kubernetes.api.model.apps.Deployment.class, ControlPlaneTest.NAME);
    assertThat(ControlPlaneTest.envOf(controlPlane))
        .as("the control plane asks the TokenReview API for the agents' token audience")
        .containsEntry("FLEETWAVE_NODE_IDENTITY_TOKEN_AUDIENCES", token.getAudience());
    assertThat(token.getAudience()).isEqualTo("fleetwave-enrolment");
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentReadsItsKafkaSettingsAndThePublicKeyFromMountedFiles(HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    // Kafka runs in the control plane's namespace, so its Service's namespace-qualified name.
    assertThat(agent.envValue("FLEETWAVE_KAFKA_BOOTSTRAP"))
        .isEqualTo("fleetwave-kafka-bootstrap.fleetwave.svc:9093");

    String kafkaConfig = agent.envValue("FLEETWAVE_KAFKA_CONFIG");
    assertThat(kafkaConfig).isEqualTo("/etc/fleetwave/kafka/client.properties");
    Volume kafka = agent.volumeAt(parent(kafkaConfig));
    assertThat(kafka.getConfigMap().getName()).isEqualTo("fleetwave-agent-kafka");

    Volume ca = agent.volumeAt("/etc/fleetwave/kafka-ca");
    assertThat(ca.getSecret().getSecretName()).isEqualTo("fleetwave-cluster-ca-cert");

    // The directory the whole key ConfigMap is mounted at, not one of its entries: a key added
    // to the ConfigMap for a rotation (docs/security.md) must reach the running agents, which
    // read every file of the directory again when it changes. Items or a subPath would pin the
    // one key the pods started with.
    String publicKeys = agent.envValue("FLEETWAVE_COMMAND_PUBLIC_KEY");
    assertThat(publicKeys).isEqualTo("/etc/fleetwave/keys");
    Volume keys = agent.volumeAt(publicKeys);
    assertThat(keys.getConfigMap().getName()).isEqualTo("fleetwave-command-public-key");
    assertThat(keys.getConfigMap().getItems()).as("every entry of the ConfigMap").isEmpty();
    assertThat(agent.mountAt(publicKeys).orElseThrow().getSubPath())
        .as("a subPath mount is never updated")
        .isNull();
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentMayGetNodesToReadItsZoneAndLabelsAndNothingElse(HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    String account = agent.pod().getServiceAccountName();
    assertThat(account).isEqualTo("fleetwave-agent");
    Rendered shared = AgentOverlay.shared();
    ServiceAccount serviceAccount = shared.one(ServiceAccount.class, account);
    assertThat(serviceAccount.getMetadata().getNamespace())
        .isEqualTo(agent.daemonSet().getMetadata().getNamespace());
    ClusterRole role = shared.one(ClusterRole.class, "fleetwave-agent");
    assertThat(Rules.of(role.getRules())).containsExactly(new Rules.Rule("", "nodes", "get"));
    ClusterRoleBinding binding = shared.one(ClusterRoleBinding.class, "fleetwave-agent");
    assertThat(binding.getRoleRef().getName()).isEqualTo("fleetwave-agent");
    assertThat(binding.getSubjects())
        .extracting(s -> s.getKind(), s -> s.getName(), s -> s.getNamespace())
        .containsExactly(
            tuple("ServiceAccount", account, agent.daemonSet().getMetadata().getNamespace()));
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentDaemonSetHasItsOwnNameAndOwnsOnlyThePodsOfItsHostKind(HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    assertThat(agent.daemonSet().getMetadata().getName())
        .isEqualTo("fleetwave-agent-" + kind.overlay);
    Map<String, String> selector = agent.daemonSet().getSpec().getSelector().getMatchLabels();
    assertThat(selector).containsEntry(HOST_KIND_LABEL, kind.overlay);
    assertThat(agent.daemonSet().getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(selector);
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyAgentRunsOnlyOnNodesOfItsHostKind(HostKind kind) {
    List<String> expected =
        switch (kind) {
          case UBUNTU, DRIVER_CONTAINER, VGPU_HOST ->
              List.of(HOST_KIND_LABEL + " In [" + kind.overlay + "]");
          case TALOS ->
              List.of(
                  "feature.node.kubernetes.io/system-os_release.ID In [talos]",
                  "feature.node.kubernetes.io/pci-10de.present In [true]");
          case COS ->
              List.of(
                  "cloud.google.com/gke-os-distribution In [cos]",
                  "cloud.google.com/gke-accelerator Exists []");
        };
    List<NodeSelectorTerm> terms =
        AgentOverlay.of(kind)
            .pod()
            .getAffinity()
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms();
    assertThat(terms).hasSize(1);
    assertThat(terms.getFirst().getMatchExpressions().stream().map(AgentOverlaysTest::describe))
        .containsExactlyElementsOf(expected);
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void systemdHostsGetTheDbusSystemSocketAndOthersNoSystemdMountAtAll(HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    if (kind.systemd) {
      AgentOverlay.HostPathMount bus =
          agent
              .hostPathMount("/run/dbus/system_bus_socket")
              .orElseThrow(() -> new AssertionError(kind.dir() + ": no D-Bus system socket"));
      assertThat(bus.hostPath().getType()).isEqualTo("Socket");
    } else {
      assertThat(agent.hostPathMounts())
          .extracting(m -> m.hostPath().getPath())
          .noneMatch(p -> p.contains("dbus") || p.contains("systemd"));
    }
  }

  @Test
  void talosAgentWritesNothingToTheHostNotEvenBelowItsReadOnlyRoot() {
    AgentOverlay agent = AgentOverlay.of(HostKind.TALOS);
    assertThat(agent.hostPathMounts())
        .allSatisfy(m -> assertThat(m.mount().getReadOnly()).isTrue())
        .allSatisfy(
            m ->
                assertThat(m.hostPath().getType())
                    .as("the kubelet creates a missing *OrCreate path on the host")
                    .doesNotEndWith("OrCreate"));
    VolumeMount root = agent.mountAt("/host").orElseThrow();
    assertThat(root.getRecursiveReadOnly()).isEqualTo("IfPossible");
    assertThat(root.getMountPropagation())
        .as("recursive read-only needs mount propagation None")
        .isEqualTo("None");
    assertThat(agent.env("FLEETWAVE_DRIVER_ROOT")).as("detected under /usr/local").isEmpty();
  }

  @Test
  void driverContainerAgentSeesTheDriverContainersRootAsTheHostMountsIt() {
    AgentOverlay agent = AgentOverlay.of(HostKind.DRIVER_CONTAINER);
    assertThat(agent.envValue("FLEETWAVE_DRIVER_ROOT")).isEqualTo("/run/nvidia/driver");
    AgentOverlay.HostPathMount driver =
        agent
            .hostPathMount("/run/nvidia/driver")
            .orElseThrow(() -> new AssertionError("no driver root"));
    assertThat(driver.mount().getReadOnly()).isTrue();
    assertThat(driver.mount().getMountPropagation())
        .as("the driver container mounts its root after the agent may have started")
        .isEqualTo("HostToContainer");
    assertThat(agent.mountAt("/host").orElseThrow().getMountPropagation())
        .isEqualTo("HostToContainer");
  }

  @Test
  void cosAgentFindsTheDriverUnderHomeKubernetesBinNvidiaAndTheDevicesInDev() {
    AgentOverlay agent = AgentOverlay.of(HostKind.COS);
    assertThat(agent.envValue("FLEETWAVE_DRIVER_ROOT")).isEqualTo("/home/kubernetes/bin/nvidia");
    assertThat(agent.hostPathMount("/home/kubernetes/bin/nvidia")).isPresent();
    assertThat(agent.envValue("FLEETWAVE_DEVICE_ROOT"))
        .as("the device root holds dev/nvidia*: / for the host's /dev")
        .isEqualTo("/");
    AgentOverlay.HostPathMount dev =
        agent.hostPathMount("/dev").orElseThrow(() -> new AssertionError("no /dev"));
    assertThat(dev.mount().getMountPath()).isEqualTo("/host/dev");
  }

  @Test
  void vgpuHostAgentWritesSysfsForSriovAndFindsSriovManageUnderTheHostRoot() {
    AgentOverlay agent = AgentOverlay.of(HostKind.VGPU_HOST);
    AgentOverlay.HostPathMount sys =
        agent.hostPathMount("/sys").orElseThrow(() -> new AssertionError("no /sys"));
    assertThat(sys.writable()).isTrue();
    // sriov-manage is /usr/lib/nvidia/sriov-manage on the host: under the host root, not masked.
    assertThat(agent.hostPathMount("/").orElseThrow().mount().getMountPath()).isEqualTo("/host");
    assertThat(agent.hostPathMounts())
        .extracting(m -> m.hostPath().getPath())
        .noneMatch(p -> p.startsWith("/usr"));
  }

  /**
   * Every privilege the agent YAML grants (privileged, hostPID, a hostPath volume, a writable
   * mount) has a comment right above it saying why. Rendering drops comments, so this reads the
   * sources.
   */
  @Test
  void everyPrivilegeOfTheAgentIsExplainedInAComment() throws IOException {
    List<String> unexplained = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(Kustomize.deployDir().resolve("agent"))) {
      files = walk.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    for (Path file : files) {
      List<String> lines = Files.readAllLines(file);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i).strip();
        int explainedAt;
        if (line.equals("privileged: true") || line.equals("hostPID: true")) {
          explainedAt = i;
        } else if (line.startsWith("hostPath:") || line.equals("readOnly: false")) {
          explainedAt = itemStart(lines, i);
        } else {
          continue;
        }
        if (explainedAt <= 0 || !lines.get(explainedAt - 1).strip().startsWith("#")) {
          unexplained.add(Kustomize.deployDir().relativize(file) + ":" + (i + 1) + " " + line);
        }
      }
    }
    assertThat(unexplained).as("privileges without a comment saying why").isEmpty();
  }

  /** The line that starts the list item ({@code - name: ...}) holding line {@code i}. */
  private static int itemStart(List<String> lines, int i) {
    int indent = indent(lines.get(i));
    for (int j = i; j >= 0; j--) {
      String line = lines.get(j);
      if (line.strip().startsWith("- ") && indent(line) < indent) {
        return j;
      }
    }
    return -1;
  }

  private static int indent(String line) {
    return line.length() - line.stripLeading().length();
  }

  private static String describe(NodeSelectorRequirement requirement) {
    return requirement.getKey()
        + " "
        + requirement.getOperator()
        + " "
        + new TreeSet<>(requirement.getValues() == null ? List.of() : requirement.getValues());
  }

  /**
   * client.properties holds no secret: the agent's own loader accepts it, its truststore is the
   * mounted CA, and Kafka's DirectoryConfigProvider puts the password from the mounted Secret into
   * the JAAS line: Kafka's own config resolution runs on the rendered file (with the Secret's
   * directory moved to a temporary one) and yields the login of the KafkaUser whose password comes
   * from that same Secret.
   */
  @ParameterizedTest
  @EnumSource(HostKind.class)
  void theAgentsKafkaPasswordComesFromTheSecretTheirKafkaUserTakesItFrom(
      HostKind kind, @TempDir Path secretDir, @TempDir Path configDir) throws IOException {
    AgentOverlay agent = AgentOverlay.of(kind);
    String text =
        AgentOverlay.shared()
            .one(ConfigMap.class, "fleetwave-agent-kafka")
            .getData()
            .get("client.properties");
    Path file = configDir.resolve("client.properties");
    Files.writeString(file, text);
    KafkaConfigFile config = KafkaConfigFile.load(file);

    String mountedDir = "/etc/fleetwave/kafka-user";
    assertThat(config.overrides())
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry("ssl.truststore.type", "PEM")
        .containsEntry("config.providers", "dir")
        .containsEntry("config.providers.dir.param.allowed.paths", mountedDir)
        .containsEntry(
            "config.providers.dir.class",
            "org.apache.kafka.common.config.provider.DirectoryConfigProvider");
    String truststore = (String) config.overrides().get("ssl.truststore.location");
    assertThat(agent.volumeAt(parent(truststore)).getSecret().getSecretName())
        .isEqualTo("fleetwave-cluster-ca-cert");

    // The KafkaUser takes its password from the Secret the agents mount, same name, same key.
    GenericKubernetesResource user =
        Kustomize.render("install").custom("KafkaUser", "fleetwave-agent");
    Map<String, Object> passwordRef =
        map(
            map(map(map(Rendered.field(user, "spec"), "authentication"), "password"), "valueFrom"),
            "secretKeyRef");
    SecretVolumeSource mounted = agent.volumeAt(mountedDir).getSecret();
    assertThat(mounted.getSecretName()).isEqualTo(passwordRef.get("name"));
    assertThat(mounted.getItems())
        .extracting(i -> i.getKey(), i -> i.getPath())
        .containsExactly(tuple(passwordRef.get("key"), passwordRef.get("key")));

    // What the Kafka client makes of it, the Secret's file in a directory of our own.
    Files.writeString(secretDir.resolve((String) passwordRef.get("key")), "s3cret-from-the-secret");
    Map<String, Object> properties = new HashMap<>();
    config
        .overrides()
        .forEach(
            (key, value) ->
                properties.put(key, value.toString().replace(mountedDir, secretDir.toString())));
    Object jaas =
        new AbstractConfig(new ConfigDef(), properties).originals().get("sasl.jaas.config");
    assertThat(jaas)
        .isEqualTo(
            "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\""
                + user.getMetadata().getName()
                + "\" password=\"s3cret-from-the-secret\";");
    assertThat(text).doesNotContain("s3cret").contains("password=\"${dir:");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Map<String, Object> parent, String key) {
    if (!(parent.get(key) instanceof Map<?, ?> child)) {
      throw new AssertionError("no " + key + " in " + parent);
    }
    return (Map<String, Object>) child;
  }

  /**
   * Deleting one host kind's overlay deletes its DaemonSet and nothing the other kinds still use:
   * the overlay renders only that, and what its pods refer to by name is in agent/shared.
   */
  @ParameterizedTest
  @EnumSource(HostKind.class)
  void everyOverlayRendersOnlyItsDaemonSetAndFindsWhatItSharesInAgentShared(HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    assertThat(agent.rendered().names())
        .containsExactly("DaemonSet/fleetwave-agent-" + kind.overlay);
    Rendered shared = AgentOverlay.shared();
    assertThat(shared.all(DaemonSet.class)).isEmpty();
    shared.one(ServiceAccount.class, agent.pod().getServiceAccountName());
    shared.one(PriorityClass.class, agent.pod().getPriorityClassName());
    shared.one(ConfigMap.class, agent.volumeAt("/etc/fleetwave/kafka").getConfigMap().getName());
    assertThat(shared.resources())
        .allSatisfy(
            r ->
                assertThat(r.getMetadata().getNamespace())
                    .isIn(null, agent.daemonSet().getMetadata().getNamespace()));
  }

  private static String parent(String file) {
    return Path.of(file).getParent().toString();
  }
}
