package io.fleetwave.controlplane.kubernetes;

import static io.fleetwave.controlplane.kubernetes.KubernetesPods.node;
import static io.fleetwave.controlplane.kubernetes.KubernetesPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fleetwave.controlplane.fixtures.AgentPods;
import io.fleetwave.controlplane.fixtures.MockKubernetesApi;
import io.fleetwave.controlplane.identity.AgentDaemonSets;
import io.fleetwave.controlplane.identity.KafkaCredentialUnavailableException;
import io.fleetwave.controlplane.identity.KafkaUserSettings;
import io.fleetwave.controlplane.identity.NodeKafkaUsers;
import io.fleetwave.controlplane.identity.ServiceAccountReview;
import io.fleetwave.controlplane.rollout.driver.DriverJobTemplate;
import io.fleetwave.controlplane.rollout.driver.DriverRequests;
import io.fleetwave.controlplane.rollout.driver.KubernetesJobDriverExecutor;
import io.fleetwave.controlplane.rollout.driver.KubernetesJobDriverExecutorTest;
import io.fleetwave.core.rollout.disruption.Disruption;
import io.fleetwave.core.rollout.disruption.NodeOutage;
import io.fleetwave.core.selector.LabelSelector;
import io.fleetwave.events.rollout.Phase;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The control plane's RBAC in deploy/ grants exactly what its code calls: every Kubernetes effect
 * (cordon and drain with every option, GPU Operator labels, driver Jobs) runs against the mock API
 * server, each request becomes (API group, resource, verb), and that set must equal the rules of
 * deploy/control-plane/rbac.yaml and of the kubernetes-job executor's component (the Job grant,
 * only there): a call the RBAC lacks would be a 403 on a real cluster, a rule no call uses is a
 * privilege nobody needs. The device-plugin gate labels (GateLabels) edit nodes the same way the
 * drain does (get, then patch).
 */
class ControlPlaneRbacTest {
  private static final Path RBAC = Path.of("..", "deploy", "control-plane", "rbac.yaml");

  /** The Job grant, only in the component that turns the kubernetes-job executor on. */
  private static final Path JOB_EXECUTOR_RBAC =
      Path.of(
          "..", "deploy", "control-plane", "components", "kubernetes-job-executor", "rbac.yaml");

  /** The read of the agents' pods, in their namespace (with the agents' shared objects). */
  private static final Path AGENT_PODS_RBAC =
      Path.of("..", "deploy", "agent", "shared", "control-plane-rbac.yaml");

  /**
   * The node's own KafkaUsers and their Secrets, in the Kafka cluster's namespace (opt-in, not in
   * the default install).
   */
  private static final Path KAFKA_USERS_RBAC =
      Path.of("..", "deploy", "kafka", "node-kafka-users", "rbac.yaml");

  private static final Duration BOUND = Duration.ofSeconds(20);

  /** The batch pod ending while the drain waits for it: the test's request, not the code's. */
  private static final String TESTS_OWN_DELETE = "/namespaces/jobs/pods/batch-1";

  private static final UUID ROLLOUT = UUID.fromString("3f7f2b5e-0c8e-4a57-9d1e-2b6c5e8a4d10");

  /** One permission as RBAC spells it. */
  record Permission(String group, String resource, String verb) implements Comparable<Permission> {
    @Override
    public int compareTo(Permission other) {
      return toString().compareTo(other.toString());
    }

    @Override
    public String toString() {
      return (group.isEmpty() ? "core" : group) + "/" + resource + ":" + verb;
    }
  }

  @TempDir Path dir;
  private String enrollingAgentUid;
  private MockKubernetesApi api;
  private KubernetesClient client;

  @BeforeEach
  void start() {
    api = MockKubernetesApi.start();
    client =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(api.client().getConfiguration())
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build();
  }

  @AfterEach
  void stop() {
    client.close();
    api.close();
  }

  @Test
  void theRbacInDeployGrantsExactlyTheCallsTheControlPlaneMakes() throws Exception {
    client
        .nodes()
        .resource(node("gpu-1", Map.of("nvidia.com/gpu.deploy.device-plugin", "true"), false))
        .create();
    client
        .pods()
        .inNamespace("jobs")
        .resource(pod("jobs", "train-1", "gpu-1", "nvidia.com/gpu"))
        .create();
    // A batch pod the drain waits for (wait-for-selector) before it evicts: it ends while watched.
    client
        .pods()
        .inNamespace("jobs")
        .resource(
            KubernetesPods.labelled(pod("jobs", "batch-1", "gpu-1", null), Map.of("batch", "true")))
        .create();
    // The agent pod that enrolls with its service-account token.
    enrollingAgentUid =
        client
            .pods()
            .inNamespace("fleetwave-agents")
            .resource(enrollingAgent())
            .create()
            .getMetadata()
            .getUid();
    int before = api.journal().size();

    exerciseEveryKubernetesEffect();

    Set<Permission> used = new TreeSet<>();
    api.journal().stream()
        .skip(before)
        .filter(r -> !(r.method().equals("DELETE") && r.path().endsWith(TESTS_OWN_DELETE)))
        .forEach(r -> used.add(permission(r.method(), r.path())));
    Set<Permission> granted = granted(RBAC);
    granted.addAll(granted(JOB_EXECUTOR_RBAC));
    granted.addAll(granted(AGENT_PODS_RBAC));
    granted.addAll(granted(KAFKA_USERS_RBAC));

    assertThat(granted)
        .as(
            "RBAC rules of %s, %s, %s and %s against the calls",
            RBAC, JOB_EXECUTOR_RBAC, AGENT_PODS_RBAC, KAFKA_USERS_RBAC)
        .isEqualTo(used);
  }

  @Test
  void onlyTheKubernetesJobExecutorsComponentGrantsJobs() throws Exception {
    assertThat(granted(RBAC))
        .as("%s is applied whatever the driver executor: it may grant no Job", RBAC)
        .noneMatch(p -> p.resource().equals("jobs"));
    assertThat(granted(JOB_EXECUTOR_RBAC))
        .containsExactlyInAnyOrder(
            new Permission("batch", "jobs", "create"), new Permission("batch", "jobs", "get"));
  }

  @ParameterizedTest(name = "{0} {1} needs {3} {4} of group \"{2}\"")
  @CsvSource({
    "GET,   /api/v1/nodes/gpu-1,                                   '',    nodes,         get",
    "GET,   /api/v1/pods?fieldSelector=spec.nodeName%3Dgpu-1,      '',    pods,          list",
    "GET,   /api/v1/namespaces/a/pods?fieldSelector=x&watch=true,  '',    pods,          watch",
    "POST,  /api/v1/namespaces/a/pods/p/eviction,                  '',    pods/eviction, create",
    "POST,  /apis/batch/v1/namespaces/ops/jobs,                    batch, jobs,          create",
    "PATCH, /api/v1/nodes/gpu-1,                                   '',    nodes,         patch"
  })
  void requestsMapToTheirRbacPermission(
      String method, String path, String group, String resource, String verb) {
    assertThat(permission(method, path)).isEqualTo(new Permission(group, resource, verb));
  }

  private void exerciseEveryKubernetesEffect() throws Exception {
    KubernetesNodeDrain drain =
        new KubernetesNodeDrain(
            client,
            new DrainSettings(
                Duration.ofSeconds(5),
                Duration.ofMillis(100),
                new PodSelection(List.of("nvidia.com/gpu"), LabelSelector.parse(""), false),
                LabelSelector.parse("batch=true"),
                Duration.ofSeconds(5),
                List.of("device-plugin"),
                Duration.ofSeconds(5)));
    NodeOutage mig =
        new NodeOutage(ROLLOUT, "gpu-1", Phase.FORWARD, Disruption.GPU, true, "all-balanced");
    var draining = drain.takeOutOfService(mig).subscribeAsCompletionStage();
    await("the drain watches the batch pod it waits for")
        .atMost(BOUND)
        .until(() -> api.journal().stream().anyMatch(r -> r.path().contains("watch=true")));
    client.pods().inNamespace("jobs").withName("batch-1").delete();
    draining.get(BOUND.toSeconds(), TimeUnit.SECONDS);
    drain.rebooting(mig).await().atMost(BOUND);
    drain.returnToService(mig).await().atMost(BOUND);
    drain.takeOutOfService(mig).await().atMost(BOUND);
    drain.keepOutOfService(mig, "failed").await().atMost(BOUND);

    Path template =
        Files.writeString(dir.resolve("job.yaml"), KubernetesJobDriverExecutorTest.TEMPLATE);
    KubernetesJobDriverExecutor jobs =
        new KubernetesJobDriverExecutor(
            client, DriverJobTemplate.load(template), "fleetwave", Duration.ofSeconds(10));
    jobs.request(DriverRequests.talos("talos-1")).await().atMost(BOUND);
    jobs.request(DriverRequests.talos("talos-1")).await().atMost(BOUND); // a repeated request

    // A node enrolling with a service-account token: one TokenReview, then a read of the pod the
    // token was issued to (in the agents' namespace).
    api.reviewTokens(
        body ->
            """
            {"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","status":{
             "authenticated":true,"user":{"username":"%s","extra":{
             "authentication.kubernetes.io/node-name":["gpu-1"],
             "authentication.kubernetes.io/pod-name":["fleetwave-agent-ubuntu-1"],
             "authentication.kubernetes.io/pod-uid":["%s"]}}}}
            """
                .formatted(AGENT_ACCOUNT, enrollingAgentUid));
    ServiceAccountReview review =
        new ServiceAccountReview(
            () -> client,
            Set.of(AGENT_ACCOUNT),
            List.of(),
            new AgentDaemonSets(List.of("fleetwave-agent-*")));
    exerciseNodeKafkaUsers();
    assertThat(review.nodeOf("a-token", "gpu-1").await().atMost(BOUND))
        .isEqualTo(
            "service account "
                + AGENT_ACCOUNT
                + " (pod fleetwave-agents/fleetwave-agent-ubuntu-1)");
  }

  /**
   * A node's own KafkaUser: made at enrolment (and made again, which updates it), its Secret read
   * (never written here: no User Operator runs, so the wait runs out), deleted at revocation.
   */
  private void exerciseNodeKafkaUsers() {
    NodeKafkaUsers users =
        new NodeKafkaUsers(
            () -> client,
            true,
            new KafkaUserSettings(
                "fleetwave", "fleetwave", Duration.ofMillis(300), 65536, 1048576, 10));
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> users.provision("gpu-1").await().atMost(BOUND))
          .isInstanceOf(KafkaCredentialUnavailableException.class);
    }
    assertThat(users.delete("gpu-1").await().atMost(BOUND)).isTrue();
  }

  private static final String AGENT_ACCOUNT =
      "system:serviceaccount:fleetwave-agents:fleetwave-agent";

  private static Pod enrollingAgent() {
    return AgentPods.controlledBy(
        "fleetwave-agents",
        "fleetwave-agent-ubuntu-1",
        null,
        "gpu-1",
        "DaemonSet",
        "fleetwave-agent-ubuntu");
  }

  /** RBAC's view of one request: the group and resource from the path, the verb from the method. */
  static Permission permission(String method, String pathAndQuery) {
    int q = pathAndQuery.indexOf('?');
    String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
    String query = q < 0 ? "" : pathAndQuery.substring(q + 1);
    List<String> parts = List.of(path.substring(1).split("/"));
    String group;
    int next;
    if (parts.get(0).equals("api")) {
      group = "";
      next = 2; // api/v1
    } else {
      group = parts.get(1);
      next = 3; // apis/group/version
    }
    if (parts.size() > next + 1 && parts.get(next).equals("namespaces")) {
      next += 2;
    }
    String resource = parts.get(next);
    boolean named = parts.size() > next + 1;
    if (parts.size() > next + 2) {
      resource += "/" + parts.get(next + 2);
    }
    String verb =
        switch (method) {
          case "GET" -> named ? "get" : query.contains("watch=true") ? "watch" : "list";
          case "POST" -> "create";
          case "PATCH" -> "patch";
          case "PUT" -> "update";
          case "DELETE" -> named ? "delete" : "deletecollection";
          default -> throw new IllegalArgumentException("no RBAC verb for " + method);
        };
    return new Permission(group, resource, verb);
  }

  private Set<Permission> granted(Path rbac) throws Exception {
    Set<Permission> granted = new TreeSet<>();
    try (InputStream yaml = Files.newInputStream(rbac)) {
      for (HasMetadata object : client.load(yaml).items()) {
        List<PolicyRule> rules =
            switch (object) {
              case ClusterRole role -> role.getRules();
              case Role role -> role.getRules();
              default -> List.of();
            };
        for (PolicyRule rule : rules) {
          for (String group : rule.getApiGroups()) {
            for (String resource : rule.getResources()) {
              for (String verb : rule.getVerbs()) {
                granted.add(new Permission(group, resource, verb));
              }
            }
          }
        }
      }
    }
    return granted;
  }
}
