package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fleetwave.embedded.KafkaAccess;
import io.fleetwave.events.Topics;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Strimzi topics and users: each side may do what its code does, nothing else. */
class KafkaTest {
  private static final String CLUSTER = "strimzi.io/cluster";
  private final Rendered install = Kustomize.render("install");

  /** The grants the SASL tests run the real agent and control plane under, and no others. */
  @Test
  void eachKafkaUserGrantsExactlyWhatItsComponentIsTestedWith() {
    assertThat(acls("fleetwave-agent"))
        .containsExactlyInAnyOrderElementsOf(
            KafkaAccess.AGENT.stream().map(KafkaAccess.Grant::strimzi).toList());
    assertThat(acls(ControlPlaneTest.NAME))
        .containsExactlyInAnyOrderElementsOf(
            KafkaAccess.CONTROL_PLANE.stream().map(KafkaAccess.Grant::strimzi).toList());
  }

  @Test
  void agentsMayWriteAndReadNodeEventsAndReadDesiredSpecsAndCommandsOnly() {
    assertThat(acls("fleetwave-agent"))
        .containsExactlyInAnyOrder(
            "topic literal " + Topics.NODE_EVENTS + " Write",
            "topic literal " + Topics.NODE_EVENTS + " Read",
            "topic literal " + Topics.NODE_DESIRED + " Read",
            "topic literal " + Topics.NODE_COMMANDS + " Read");
  }

  @Test
  void controlPlaneMayUseItsTopicsAndItsFleetwaveConsumerGroupsOnly() {
    assertThat(acls(ControlPlaneTest.NAME))
        .containsExactlyInAnyOrder(
            "topic literal " + Topics.NODE_EVENTS + " Read",
            "topic literal " + Topics.NODE_EVENTS_DLQ + " Write",
            "topic literal " + Topics.NODE_DESIRED + " Write",
            "topic literal " + Topics.NODE_SNAPSHOTS + " Read",
            "topic literal " + Topics.NODE_SNAPSHOTS + " Write",
            "topic literal " + Topics.NODE_COMMANDS + " Write",
            "topic literal " + Topics.ROLLOUT_EVENTS + " Read",
            "topic literal " + Topics.ROLLOUT_EVENTS + " Write",
            "topic literal " + Topics.CONTROL_FACTS + " Read",
            "topic literal " + Topics.CONTROL_FACTS + " Write",
            "group prefix fleetwave- Read");
  }

  @Test
  void everyUserAuthenticatesWithScramAndEveryTopicItMayUseIsCreated() {
    Set<String> topics = new TreeSet<>();
    install.custom("KafkaTopic").forEach(t -> topics.add(t.getMetadata().getName()));
    for (GenericKubernetesResource user : install.custom("KafkaUser")) {
      Map<String, Object> spec = Rendered.field(user, "spec");
      assertThat(map(spec.get("authentication"))).containsEntry("type", "scram-sha-512");
      for (String acl : acls(user.getMetadata().getName())) {
        String[] parts = acl.split(" ", -1);
        if (parts[0].equals("topic")) {
          assertThat(topics).as("topic of %s", acl).contains(parts[2]);
        }
      }
    }
  }

  @Test
  void desiredSpecsAndNodeSnapshotsAreCompactedAndRolloutEventsAreKeptForever() {
    assertThat(config("fleet.node-desired")).containsEntry("cleanup.policy", "compact");
    assertThat(config("fleet.node-snapshots")).containsEntry("cleanup.policy", "compact");
    assertThat(config("fleet.rollout-events")).containsEntry("retention.ms", "-1");
    assertThat(config("fleet.rollout-events")).doesNotContainEntry("cleanup.policy", "compact");
  }

  @Test
  void controlFactsAreKeptForeverAndNeverCompacted() {
    assertThat(config(Topics.CONTROL_FACTS))
        .containsEntry("retention.ms", "-1")
        .containsEntry("cleanup.policy", "delete");
  }

  @Test
  void topicsUsersAndEveryClientBelongToTheSameKafkaCluster() {
    Set<String> clusters = new TreeSet<>();
    install
        .custom("KafkaTopic")
        .forEach(t -> clusters.add(t.getMetadata().getLabels().get(CLUSTER)));
    install
        .custom("KafkaUser")
        .forEach(u -> clusters.add(u.getMetadata().getLabels().get(CLUSTER)));
    assertThat(clusters).hasSize(1);
    String cluster = clusters.iterator().next();
    // Strimzi names the bootstrap Service <cluster>-kafka-bootstrap, the CA
    // <cluster>-cluster-ca-cert.
    Container controlPlane =
        install
            .one(Deployment.class, ControlPlaneTest.NAME)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .getFirst();
    assertThat(value(controlPlane, "KAFKA_BOOTSTRAP_SERVERS"))
        .startsWith(cluster + "-kafka-bootstrap:");
    assertThat(
            secretVolumes(
                install
                    .one(Deployment.class, ControlPlaneTest.NAME)
                    .getSpec()
                    .getTemplate()
                    .getSpec()))
        .contains(cluster + "-cluster-ca-cert");
    // The agents run in a namespace of their own: they name the bootstrap Service with the
    // namespace of the Kafka cluster, the one its Topic and User Operators watch (the KafkaUsers').
    Set<String> kafkaNamespaces = new TreeSet<>();
    install.custom("KafkaUser").forEach(u -> kafkaNamespaces.add(u.getMetadata().getNamespace()));
    assertThat(kafkaNamespaces).hasSize(1);
    for (HostKind kind : HostKind.values()) {
      AgentOverlay agent = AgentOverlay.of(kind);
      assertThat(agent.envValue("FLEETWAVE_KAFKA_BOOTSTRAP"))
          .as(kind.dir())
          .startsWith(cluster + "-kafka-bootstrap." + kafkaNamespaces.iterator().next() + ".svc:");
      assertThat(secretVolumes(agent.pod())).as(kind.dir()).contains(cluster + "-cluster-ca-cert");
    }
  }

  private static String value(Container container, String name) {
    return container.getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + name))
        .getValue();
  }

  private static List<String> secretVolumes(PodSpec pod) {
    return pod.getVolumes().stream()
        .filter(v -> v.getSecret() != null)
        .map(v -> v.getSecret().getSecretName())
        .toList();
  }

  private List<String> acls(String user) {
    Map<String, Object> spec = Rendered.field(install.custom("KafkaUser", user), "spec");
    Map<String, Object> authorization = map(spec.get("authorization"));
    assertThat(authorization).containsEntry("type", "simple");
    List<String> flat = new java.util.ArrayList<>();
    for (Object entry : (List<?>) authorization.get("acls")) {
      Map<String, Object> acl = map(entry);
      Map<String, Object> resource = map(acl.get("resource"));
      assertThat(acl).as("deprecated single operation field").doesNotContainKey("operation");
      assertThat(acl.getOrDefault("host", "*")).isEqualTo("*");
      for (Object operation : (List<?>) acl.get("operations")) {
        flat.add(
            resource.get("type")
                + " "
                + resource.getOrDefault("patternType", "literal")
                + " "
                + resource.get("name")
                + " "
                + operation);
      }
    }
    return flat;
  }

  private Map<String, Object> config(String topic) {
    return map(Rendered.field(install.custom("KafkaTopic", topic), "spec").get("config"));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return (Map<String, Object>) value;
  }
}
