package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** The control plane as deploy/install renders it. */
class ControlPlaneTest {
  static final String NAME = "fleetwave-control-plane";

  private final Rendered install = Kustomize.render("install");
  private final Deployment deployment = install.one(Deployment.class, NAME);
  private final PodSpec pod = deployment.getSpec().getTemplate().getSpec();
  private final Container container = pod.getContainers().getFirst();

  @Test
  void controlPlaneRunsTwoReplicasAndUpdatesWithoutDroppingOne() {
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    assertThat(pod.getContainers()).hasSize(1);
    assertThat(
            deployment.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal())
        .isZero();
  }

  @Test
  void controlPlaneRunsAsNonRootWithAReadOnlyRootNoCapabilitiesAndTheDefaultSeccompProfile() {
    PodSecurityContext podContext = pod.getSecurityContext();
    assertThat(podContext.getRunAsNonRoot()).isTrue();
    assertThat(podContext.getRunAsUser()).isPositive();
    assertThat(podContext.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");

    SecurityContext context = container.getSecurityContext();
    assertThat(context.getRunAsNonRoot()).isTrue();
    assertThat(context.getAllowPrivilegeEscalation()).isFalse();
    assertThat(context.getReadOnlyRootFilesystem()).isTrue();
    assertThat(context.getPrivileged()).isNotEqualTo(true);
    assertThat(context.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(context.getCapabilities().getAdd()).isNullOrEmpty();

    assertThat(pod.getHostPID()).isNotEqualTo(true);
    assertThat(pod.getHostNetwork()).isNotEqualTo(true);
    assertThat(pod.getVolumes()).allSatisfy(v -> assertThat(v.getHostPath()).isNull());
    String tmpVolume =
        first(
                container.getVolumeMounts(),
                m -> m.getMountPath().equals("/tmp"),
                "nothing writable at /tmp")
            .getName();
    assertThat(volume(tmpVolume).getEmptyDir()).isNotNull();
  }

  @Test
  void controlPlaneIsProbedOnQuarkusHealthEndpointsOnItsManagementPort() {
    assertThat(container.getPorts())
        .anySatisfy(
            p -> {
              assertThat(p.getName()).isEqualTo("http");
              assertThat(p.getContainerPort()).isEqualTo(8080);
            })
        .anySatisfy(
            p -> {
              assertThat(p.getName()).isEqualTo("management");
              assertThat(p.getContainerPort()).isEqualTo(9000);
            });
    assertProbe(container.getLivenessProbe(), "/q/health/live");
    assertProbe(container.getReadinessProbe(), "/q/health/ready");
    assertProbe(container.getStartupProbe(), "/q/health/started");
  }

  @Test
  void aDisruptionBudgetKeepsOneReplicaOfTheControlPlanePods() {
    PodDisruptionBudget budget = install.one(PodDisruptionBudget.class, NAME);
    assertThat(budget.getSpec().getMinAvailable().getIntVal()).isEqualTo(1);
    assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(budget.getSpec().getSelector().getMatchLabels());
  }

  @Test
  void theServiceExposesHttpOn8080AndManagementOn9000ToTheControlPlanePods() {
    Service service = install.one(Service.class, NAME);
    assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(service.getSpec().getSelector());
    ServicePort http = service.getSpec().getPorts().getFirst();
    assertThat(http.getName()).isEqualTo("http");
    assertThat(http.getPort()).isEqualTo(8080);
    assertThat(http.getTargetPort().getStrVal()).isEqualTo("http");
    ServicePort management = service.getSpec().getPorts().get(1);
    assertThat(management.getName()).isEqualTo("management");
    assertThat(management.getPort()).isEqualTo(9000);
    assertThat(management.getTargetPort().getStrVal()).isEqualTo("management");
  }

  @Test
  void controlPlaneReachesKafkaOverTlsWithScramCredentialsOfItsKafkaUser() {
    assertThat(literal("KAFKA_BOOTSTRAP_SERVERS")).isEqualTo("fleetwave-kafka-bootstrap:9093");
    assertThat(literal("KAFKA_SECURITY_PROTOCOL")).isEqualTo("SASL_SSL");
    assertThat(literal("KAFKA_SASL_MECHANISM")).isEqualTo("SCRAM-SHA-512");
    EnvVar jaas = env("KAFKA_SASL_JAAS_CONFIG");
    install.custom("KafkaUser", jaas.getValueFrom().getSecretKeyRef().getName());
    assertThat(jaas.getValueFrom().getSecretKeyRef().getName()).isEqualTo(NAME);
    assertThat(jaas.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("sasl.jaas.config");
    assertThat(literal("KAFKA_SSL_TRUSTSTORE_TYPE")).isEqualTo("PEM");
    String truststore = literal("KAFKA_SSL_TRUSTSTORE_LOCATION");
    String mountPath = truststore.substring(0, truststore.lastIndexOf('/'));
    String volumeName =
        first(
                container.getVolumeMounts(),
                m -> m.getMountPath().equals(mountPath),
                "nothing mounted at " + mountPath)
            .getName();
    assertThat(volume(volumeName).getSecret().getSecretName())
        .isEqualTo("fleetwave-cluster-ca-cert");
  }

  @Test
  void controlPlaneUsesTheCloudNativePgClusterAndItsAppSecret() {
    GenericKubernetesResource cluster = install.custom("Cluster", "fleetwave-db");
    Map<String, Object> spec = Rendered.field(cluster, "spec");
    @SuppressWarnings("unchecked")
    Map<String, Object> initdb =
        (Map<String, Object>) ((Map<String, Object>) spec.get("bootstrap")).get("initdb");
    String database = (String) initdb.get("database");

    assertThat(literal("QUARKUS_DATASOURCE_REACTIVE_URL"))
        .isEqualTo("postgresql://fleetwave-db-rw:5432/" + database);
    assertThat(container.getEnv())
        .as("one database URL is enough: Flyway's is derived from it")
        .noneMatch(e -> e.getName().equals("QUARKUS_DATASOURCE_JDBC_URL"));
    for (var entry : Map.of("USERNAME", "username", "PASSWORD", "password").entrySet()) {
      EnvVar credential = env("QUARKUS_DATASOURCE_" + entry.getKey());
      assertThat(credential.getValueFrom().getSecretKeyRef().getName())
          .isEqualTo("fleetwave-db-app");
      assertThat(credential.getValueFrom().getSecretKeyRef().getKey()).isEqualTo(entry.getValue());
    }
  }

  @Test
  void controlPlaneReachesPostgresOnlyOverTlsVerifyingTheClustersCaAndHostName() {
    String cluster = install.custom("Cluster", "fleetwave-db").getMetadata().getName();

    assertThat(literal("QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE"))
        .as("TLS, the certificate's chain and its host name checked")
        .isEqualTo("verify-full");
    assertThat(literal("QUARKUS_DATASOURCE_REACTIVE_HOSTNAME_VERIFICATION_ALGORITHM"))
        .isEqualTo("HTTPS");
    assertThat(literal("QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM")).isEqualTo("true");
    assertThat(literal("FLEETWAVE_DATABASE_REQUIRE_TLS")).isEqualTo("true");
    // The trusted CA is CloudNativePG's server CA, <cluster>-ca, key ca.crt, as mounted.
    String caFile = literal("QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM_CERTS");
    var mount =
        first(
            container.getVolumeMounts(),
            m -> caFile.startsWith(m.getMountPath() + "/"),
            "nothing is mounted where " + caFile + " is");
    Volume ca = volume(mount.getName());
    assertThat(ca.getSecret().getSecretName()).isEqualTo(cluster + "-ca");
    assertThat(ca.getSecret().getItems())
        .anySatisfy(
            item -> {
              assertThat(item.getKey()).isEqualTo("ca.crt");
              assertThat(mount.getMountPath() + "/" + item.getPath()).isEqualTo(caFile);
            });
  }

  @Test
  void controlPlaneSignsWithThePrivateKeyFromItsSecret() {
    EnvVar key = env("FLEETWAVE_COMMANDS_PRIVATE_KEY");
    assertThat(key.getValue()).isNull();
    assertThat(key.getValueFrom().getSecretKeyRef().getName()).isEqualTo("fleetwave-commands-key");
    assertThat(key.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("private-key.pem");
  }

  @Test
  void theServiceMonitorScrapesQuarkusMetricsOnTheServicesManagementPort() {
    GenericKubernetesResource monitor = install.custom("ServiceMonitor", NAME);
    Map<String, Object> spec = Rendered.field(monitor, "spec");
    @SuppressWarnings("unchecked")
    Map<String, String> selector =
        (Map<String, String>) ((Map<String, Object>) spec.get("selector")).get("matchLabels");
    assertThat(install.one(Service.class, NAME).getMetadata().getLabels())
        .containsAllEntriesOf(selector);
    @SuppressWarnings("unchecked")
    Map<String, Object> endpoint =
        ((java.util.List<Map<String, Object>>) spec.get("endpoints")).getFirst();
    assertThat(endpoint).containsEntry("port", "management").containsEntry("path", "/q/metrics");
  }

  private static void assertProbe(Probe probe, String path) {
    assertThat(probe).as("probe on %s", path).isNotNull();
    assertThat(probe.getHttpGet().getPath()).isEqualTo(path);
    assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("management");
  }

  /** The literal environment values of the control plane's container (references left out). */
  static Map<String, String> envOf(Deployment deployment) {
    Map<String, String> env = new TreeMap<>();
    deployment.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv().stream()
        .filter(e -> e.getValue() != null)
        .forEach(e -> env.put(e.getName(), e.getValue()));
    return env;
  }

  private EnvVar env(String name) {
    return first(
        container.getEnv(), e -> e.getName().equals(name), "the control plane has no " + name);
  }

  private String literal(String name) {
    String value = env(name).getValue();
    assertThat(value).as("%s as a literal value", name).isNotNull();
    return value;
  }

  private Volume volume(String name) {
    return first(pod.getVolumes(), v -> v.getName().equals(name), "no volume " + name);
  }

  /** The first of {@code items} that matches, or a failure saying what is {@code missing}. */
  private static <T> T first(List<T> items, Predicate<T> matches, String missing) {
    return items.stream()
        .filter(matches)
        .findFirst()
        .orElseThrow(() -> new AssertionError(missing));
  }
}
