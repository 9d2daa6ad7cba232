package io.fleetwave.controlplane.rollout.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which executor the settings choose, and the start-time refusals of bad settings. */
class DriverExecutorProducerTest {
  @TempDir Path dir;

  private static DriverExecutorProducer.Settings settings(
      String executor, boolean demo, String url, String template) {
    return new DriverExecutorProducer.Settings(
        Optional.ofNullable(executor),
        demo,
        Optional.ofNullable(url),
        Duration.ofSeconds(10),
        Optional.ofNullable(template),
        Optional.of("gpu-ops"),
        Duration.ofSeconds(10),
        Duration.ofMillis(300));
  }

  private static DriverChangeExecutor create(DriverExecutorProducer.Settings settings) {
    return DriverExecutorProducer.create(
        settings,
        () -> {
          throw new AssertionError("the Kubernetes client is only needed by kubernetes-job");
        },
        Optional::empty,
        new ObjectMapper());
  }

  @Test
  void nothingConfiguredIsNoneOutsideDemoModeAndTheSimulatorInDemoMode() {
    DriverChangeExecutor none = create(settings(null, false, null, null));
    assertThat(none.name()).isEqualTo("none");
    assertThat(none.configured()).isFalse();

    DriverChangeExecutor demo = create(settings(null, true, null, null));
    assertThat(demo).isInstanceOf(SimulatedDriverExecutor.class);
    assertThat(demo.configured()).isTrue();

    assertThat(create(settings(" none ", true, null, null)).name())
        .as("demo mode can still say none")
        .isEqualTo("none");
  }

  @Test
  void noneFailsEveryRequestSayingHowToConfigureOne() {
    DriverChangeExecutor none = create(settings("none", false, null, null));
    assertThatThrownBy(
            () ->
                none.request(DriverRequests.talos("talos-0")).await().atMost(Duration.ofSeconds(5)))
        .isInstanceOf(DriverChangeException.class)
        .hasMessageContaining("driver executor none")
        .hasMessageContaining("node talos-0")
        .hasMessageContaining("no driver executor is configured")
        .hasMessageContaining("fleetwave.rollout.driver-executor");
  }

  @Test
  void anUnknownExecutorIsRefusedListingTheKnownOnes() {
    assertThatThrownBy(() -> create(settings("helm", false, null, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "fleetwave.rollout.driver-executor=helm is not a driver executor; expected one of"
                + " [none, webhook, kubernetes-job, simulator]");
  }

  @Test
  void aWebhookNeedsAUrl() {
    assertThatThrownBy(() -> create(settings("webhook", false, null, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "fleetwave.rollout.driver-executor=webhook needs fleetwave.rollout.driver-webhook.url,"
                + " which is not set");
    assertThatThrownBy(() -> create(settings("webhook", false, "http://bad host/", null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "fleetwave.rollout.driver-webhook.url 'http://bad host/' is not a URL");
    DriverChangeExecutor webhook =
        create(settings("webhook", false, "http://upgrader.example:8080/changes", null));
    assertThat(webhook).isInstanceOf(WebhookDriverExecutor.class);
    assertThat(((WebhookDriverExecutor) webhook).url().getPort()).isEqualTo(8080);
  }

  @Test
  void aKubernetesJobNeedsAReadableJobTemplate() throws Exception {
    assertThatThrownBy(() -> create(settings("kubernetes-job", false, null, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs fleetwave.rollout.driver-job.template");
    Path missing = dir.resolve("missing.yaml");
    assertThatThrownBy(
            () ->
                DriverExecutorProducer.create(
                    settings("kubernetes-job", false, null, missing.toString()),
                    () -> null,
                    Optional::empty,
                    new ObjectMapper()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("driver job template " + missing);

    Path template = dir.resolve("job.yaml");
    Files.writeString(template, KubernetesJobDriverExecutorTest.TEMPLATE);
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      DriverChangeExecutor job =
          DriverExecutorProducer.create(
              settings("kubernetes-job", false, null, template.toString()),
              () -> client,
              Optional::empty,
              new ObjectMapper());
      assertThat(job).isInstanceOf(KubernetesJobDriverExecutor.class);
      assertThat(((KubernetesJobDriverExecutor) job).namespace()).isEqualTo("gpu-ops");
    }
  }

  @Test
  void theSimulatorOutsideDemoModeIsRefused() {
    assertThatThrownBy(() -> create(settings("simulator", false, null, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("simulator")
        .hasMessageContaining("fleetwave.demo.enabled=true");
  }
}
