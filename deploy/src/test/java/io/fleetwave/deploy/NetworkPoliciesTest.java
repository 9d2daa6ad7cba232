package io.fleetwave.deploy;

import static io.fleetwave.deploy.NetworkPolicies.NAMESPACE_NAME;
import static io.fleetwave.deploy.NetworkPolicies.selects;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The NetworkPolicies select the pods of the rendered workloads (their pod template labels, not
 * copies) and open exactly the ports those workloads declare and their clients dial. A rule is read
 * as "namespace, the pods its selector selects: ports", the pods named by what they are.
 */
class NetworkPoliciesTest {
  private static final String MONITORING = "monitoring";
  private static final String CNPG_OPERATOR = "cnpg-system";
  private static final String AGENT_POLICY = "fleetwave-agent";

  private final Rendered install = Kustomize.render("install");
  private final Rendered shared = AgentOverlay.shared();
  private final Deployment controlPlane = install.one(Deployment.class, ControlPlaneTest.NAME);
  private final PodTemplateSpec controlPlanePods = controlPlane.getSpec().getTemplate();
  private final Container controlPlaneContainer =
      controlPlanePods.getSpec().getContainers().getFirst();
  private final String controlPlaneNamespace = controlPlane.getMetadata().getNamespace();
  private final GenericKubernetesResource database = install.custom("Cluster", "fleetwave-db");

  /** A NetworkPolicy applies to a pod with its own address; a hostNetwork pod has the node's. */
  @ParameterizedTest
  @EnumSource(HostKind.class)
  void theAgentsDoNotUseTheHostNetworkSoTheirPolicyAppliesToThem(HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    assertThat(agent.pod().getHostNetwork()).isNotEqualTo(true);
    NetworkPolicy policy = shared.one(NetworkPolicy.class, AGENT_POLICY);
    assertThat(policy.getMetadata().getNamespace())
        .isEqualTo(agent.daemonSet().getMetadata().getNamespace());
    assertThat(
            selects(
                policy.getSpec().getPodSelector(),
                agent.daemonSet().getSpec().getTemplate().getMetadata().getLabels()))
        .isTrue();
    assertThat(policy.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void agentsReachOnlyDnsTheControlPlanesEnrolmentKafkasTlsListenerAndTheApiServer(HostKind kind) {
    AgentOverlay agent = AgentOverlay.of(kind);
    NetworkPolicy policy = shared.one(NetworkPolicy.class, AGENT_POLICY);

    // Enrolment: the URL's port is a port of the control plane's Service, whose target is a
    // container port of the control plane's pods.
    URI enrolment = URI.create(agent.envValue("FLEETWAVE_CONTROL_PLANE_URL"));
    int enrolmentPort = containerPortBehind(serviceOf(enrolment.getHost()), enrolment.getPort());
    // Kafka: the bootstrap's port, on the brokers of the cluster the KafkaUsers belong to.
    String bootstrap = agent.envValue("FLEETWAVE_KAFKA_BOOTSTRAP");
    int kafkaPort = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
    String kafkaNamespace =
        install.custom("KafkaUser", "fleetwave-agent").getMetadata().getNamespace();

    assertThat(egress(policy))
        .containsExactlyInAnyOrder(
            rule(controlPlaneNamespace, "control plane", "TCP/" + enrolmentPort),
            rule(kafkaNamespace, "Kafka brokers", "TCP/" + kafkaPort),
            "anywhere: TCP/53, UDP/53",
            "anywhere: TCP/443, TCP/6443");
  }

  @ParameterizedTest
  @EnumSource(HostKind.class)
  void onlyPrometheusReachesTheAgentsAndOnlyOnTheirMetricsPort(HostKind kind) {
    NetworkPolicy policy = shared.one(NetworkPolicy.class, AGENT_POLICY);
    int metrics = containerPort(AgentOverlay.of(kind).agent(), "metrics");
    assertThat(ingress(policy)).containsExactly(rule(MONITORING, null, "TCP/" + metrics));
  }

  @Test
  void theControlPlaneTakesItsApiFromAnywhereAndItsManagementPortOnlyFromPrometheus() {
    NetworkPolicy policy = install.one(NetworkPolicy.class, ControlPlaneTest.NAME);
    assertThat(policy.getMetadata().getNamespace()).isEqualTo(controlPlaneNamespace);
    assertThat(
            selects(policy.getSpec().getPodSelector(), controlPlanePods.getMetadata().getLabels()))
        .isTrue();
    assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
    assertThat(ingress(policy))
        .containsExactlyInAnyOrder(
            "anywhere: TCP/" + containerPort(controlPlaneContainer, "http"),
            rule(MONITORING, null, "TCP/" + containerPort(controlPlaneContainer, "management")));
    // Every port the control plane declares, and no other, is open to someone.
    assertThat(
            policy.getSpec().getIngress().stream()
                .flatMap(r -> r.getPorts().stream())
                .map(p -> p.getPort().getIntVal()))
        .containsExactlyInAnyOrderElementsOf(
            controlPlaneContainer.getPorts().stream()
                .map(ContainerPort::getContainerPort)
                .toList());
  }

  /**
   * CloudNativePG declares 5432 (postgresql), 8000 (status) and 9187 (metrics) on each instance;
   * the operator reaches 5432 and 8000 (CloudNativePG's "Networking" page).
   */
  @Test
  void
      theDatabaseTakesConnectionsOnlyFromTheControlPlaneTheOperatorItsInstancesTheScrapeAndGrafana() {
    NetworkPolicy policy = install.one(NetworkPolicy.class, "fleetwave-db");
    assertThat(policy.getMetadata().getNamespace())
        .isEqualTo(database.getMetadata().getNamespace())
        .isEqualTo(controlPlaneNamespace);
    assertThat(selects(policy.getSpec().getPodSelector(), databaseInstances())).isTrue();
    assertThat(
            selects(policy.getSpec().getPodSelector(), controlPlanePods.getMetadata().getLabels()))
        .isFalse();
    assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
    // The PodMonitor scrapes the same pods.
    assertThat(Rendered.field(install.custom("PodMonitor", "fleetwave-db"), "spec").get("selector"))
        .isEqualTo(Map.of("matchLabels", policy.getSpec().getPodSelector().getMatchLabels()));

    int postgres =
        URI.create(
                controlPlaneContainer.getEnv().stream()
                    .filter(e -> e.getName().equals("QUARKUS_DATASOURCE_REACTIVE_URL"))
                    .findFirst()
                    .orElseThrow()
                    .getValue())
            .getPort();
    assertThat(ingress(policy))
        .containsExactlyInAnyOrder(
            rule(null, "control plane", "TCP/" + postgres),
            rule(CNPG_OPERATOR, "CloudNativePG operator", "TCP/" + postgres + ", TCP/8000"),
            rule(null, "database instances", "TCP/" + postgres + ", TCP/8000"),
            rule(MONITORING, null, "TCP/9187"),
            rule(MONITORING, "Grafana", "TCP/" + postgres));
  }

  /**
   * The pods a peer may select, by what they are: the rendered workloads' pod template labels and,
   * for pods only the operators create, the labels those operators give them.
   */
  private Map<String, Map<String, String>> knownPods() {
    Map<String, Map<String, String>> pods = new TreeMap<>();
    pods.put("control plane", controlPlanePods.getMetadata().getLabels());
    for (HostKind kind : HostKind.values()) {
      pods.put(
          "agents " + kind.overlay,
          AgentOverlay.of(kind).daemonSet().getSpec().getTemplate().getMetadata().getLabels());
    }
    // Strimzi labels every Kafka pod of a cluster strimzi.io/cluster=<cluster>,
    // strimzi.io/kind=Kafka.
    String cluster =
        install
            .custom("KafkaUser", "fleetwave-agent")
            .getMetadata()
            .getLabels()
            .get("strimzi.io/cluster");
    pods.put(
        "Kafka brokers",
        Map.of(
            "strimzi.io/cluster",
            cluster,
            "strimzi.io/kind",
            "Kafka",
            "strimzi.io/broker-role",
            "true"));
    pods.put("database instances", databaseInstances());
    // The operator's pods, as CloudNativePG's manifest and Helm chart label them.
    pods.put("CloudNativePG operator", Map.of("app.kubernetes.io/name", "cloudnative-pg"));
    // Grafana, whose datasource (deploy/grafana) reads the reports schema: kube-prometheus-stack's
    // Grafana chart labels its pods so.
    pods.put("Grafana", Map.of("app.kubernetes.io/name", "grafana"));
    return pods;
  }

  /** CloudNativePG labels every instance of a Cluster so. */
  private Map<String, String> databaseInstances() {
    return Map.of(
        "cnpg.io/cluster", database.getMetadata().getName(), "cnpg.io/podRole", "instance");
  }

  private List<String> ingress(NetworkPolicy policy) {
    List<String> rules = new ArrayList<>();
    policy.getSpec().getIngress().forEach(r -> rules.addAll(describe(r.getFrom(), r.getPorts())));
    return rules;
  }

  private List<String> egress(NetworkPolicy policy) {
    List<String> rules = new ArrayList<>();
    policy.getSpec().getEgress().forEach(r -> rules.addAll(describe(r.getTo(), r.getPorts())));
    return rules;
  }

  private List<String> describe(List<NetworkPolicyPeer> peers, List<NetworkPolicyPort> ports) {
    String described =
        ports.stream()
            .map(p -> p.getProtocol() + "/" + p.getPort().getIntVal())
            .collect(Collectors.toCollection(TreeSet::new))
            .stream()
            .collect(Collectors.joining(", "));
    if (peers == null || peers.isEmpty()) {
      return List.of("anywhere: " + described);
    }
    return peers.stream().map(peer -> describe(peer, described)).toList();
  }

  private String describe(NetworkPolicyPeer peer, String ports) {
    String namespace =
        peer.getNamespaceSelector() == null ? null : onlyNamespaceName(peer.getNamespaceSelector());
    String pods = null;
    if (peer.getPodSelector() != null) {
      pods =
          knownPods().entrySet().stream()
              .filter(e -> selects(peer.getPodSelector(), e.getValue()))
              .map(Map.Entry::getKey)
              .collect(Collectors.joining(" + "));
      if (pods.isEmpty()) {
        pods = "none known: " + peer.getPodSelector();
      }
    }
    return rule(namespace, pods, ports);
  }

  private static String onlyNamespaceName(LabelSelector selector) {
    assertThat(selector.getMatchExpressions()).isNullOrEmpty();
    assertThat(selector.getMatchLabels()).containsOnlyKeys(NAMESPACE_NAME);
    return selector.getMatchLabels().get(NAMESPACE_NAME);
  }

  /** A peer: namespace null = the policy's own; pods null = every pod of the namespace. */
  private static String rule(String namespace, String pods, String ports) {
    return "namespace "
        + (namespace == null ? "(own)" : namespace)
        + ", pods "
        + (pods == null ? "(all)" : pods)
        + ": "
        + ports;
  }

  /**
   * The Service a DNS name {@code <service>.<namespace>.svc} names, selecting the control plane.
   */
  private Service serviceOf(String host) {
    int dot = host.indexOf('.');
    Service service = install.one(Service.class, host.substring(0, dot));
    assertThat(host.substring(dot + 1)).isEqualTo(service.getMetadata().getNamespace() + ".svc");
    assertThat(
            selects(
                new LabelSelector(null, service.getSpec().getSelector()),
                controlPlanePods.getMetadata().getLabels()))
        .isTrue();
    return service;
  }

  private int containerPortBehind(Service service, int port) {
    ServicePort servicePort =
        service.getSpec().getPorts().stream()
            .filter(p -> p.getPort() == port)
            .findFirst()
            .orElseThrow(
                () -> new AssertionError(service.getMetadata().getName() + " has no port " + port));
    return containerPort(controlPlaneContainer, servicePort.getTargetPort().getStrVal());
  }

  private static int containerPort(Container container, String name) {
    return container.getPorts().stream()
        .filter(p -> name.equals(p.getName()))
        .findFirst()
        .orElseThrow(() -> new AssertionError(container.getName() + " declares no port " + name))
        .getContainerPort();
  }
}
