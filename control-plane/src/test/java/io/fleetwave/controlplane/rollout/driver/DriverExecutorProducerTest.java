package io.fleetwave.controlplane.rollout.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.smallrye.mutiny.Uni;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which executor the settings choose, and the start-time refusals of bad settings. */
class DriverExecutorProducerTest {
  @TempDir Path dir;

  private static DriverExecutorProducer.Settings settings(
      String executor, String url, String template) {
    return webhookSettings(
        executor, url, Optional.empty(), WebhookDriverExecutorTest.SECRET, List.of(), template);
  }

  /** The webhook executor at a fixed URL, with the secret settings given. */
  private static DriverExecutorProducer.Settings webhook(
      Optional<Path> secretFile, String secret, List<String> jvmArguments) {
    return webhookSettings(
        "webhook", "http://upgrader.example/changes", secretFile, secret, jvmArguments, null);
  }

  private static DriverExecutorProducer.Settings webhookSettings(
      String executor,
      String url,
      Optional<Path> secretFile,
      String secret,
      List<String> jvmArguments,
      String template) {
    return new DriverExecutorProducer.Settings(
        Optional.ofNullable(executor),
        Optional.ofNullable(url),
        Duration.ofSeconds(10),
        secretFile,
        Optional.ofNullable(secret),
        jvmArguments,
        Optional.ofNullable(template),
        Optional.of("gpu-ops"),
        Duration.ofSeconds(10));
  }

  private static DriverChangeExecutor create(DriverExecutorProducer.Settings settings) {
    return DriverExecutorProducer.create(
        settings,
        () -> {
          throw new AssertionError("the Kubernetes client is only needed by kubernetes-job");
        },
        List.of(EXTRA),
        new ObjectMapper());
  }

  /** An executor an assembly adds by name, as the demo adds its simulator. */
  private static final DriverExecutorProvider EXTRA =
      new DriverExecutorProvider() {
        @Override
        public String name() {
          return "extra";
        }

        @Override
        public DriverChangeExecutor create() {
          return new DriverChangeExecutor() {
            @Override
            public String name() {
              return "extra";
            }

            @Override
            public Uni<Void> request(DriverChangeRequest request) {
              return Uni.createFrom().voidItem();
            }
          };
        }
      };

  @Test
  void nothingConfiguredIsNoneAndAProvidedExecutorIsChosenByName() {
    DriverChangeExecutor none = create(settings(null, null, null));
    assertThat(none.name()).isEqualTo("none");
    assertThat(none.configured()).isFalse();

    assertThat(create(settings(" extra ", null, null)).name()).isEqualTo("extra");
  }

  @Test
  void noneFailsEveryRequestSayingHowToConfigureOne() {
    DriverChangeExecutor none = create(settings("none", null, null));
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
    assertThatThrownBy(() -> create(settings("helm", null, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "fleetwave.rollout.driver-executor=helm is not a driver executor; expected one of"
                + " [none, webhook, kubernetes-job, extra]");
  }

  @Test
  void aWebhookNeedsAUrl() {
    assertThatThrownBy(() -> create(settings("webhook", null, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "fleetwave.rollout.driver-executor=webhook needs fleetwave.rollout.driver-webhook.url,"
                + " which is not set");
    assertThatThrownBy(() -> create(settings("webhook", "http://bad host/", null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "fleetwave.rollout.driver-webhook.url 'http://bad host/' is not a URL");
    DriverChangeExecutor webhook =
        create(settings("webhook", "http://upgrader.example:8080/changes", null));
    assertThat(webhook).isInstanceOf(WebhookDriverExecutor.class);
    assertThat(((WebhookDriverExecutor) webhook).url().getPort()).isEqualTo(8080);
  }

  @Test
  void aWebhookWithoutASigningSecretDoesNotStart() {
    assertThatThrownBy(() -> create(webhook(Optional.empty(), " ", List.of())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "fleetwave.rollout.driver-executor=webhook needs a signing secret, which is not set")
        .hasMessageContaining("fleetwave.rollout.driver-webhook.secret-file")
        .hasMessageContaining("FLEETWAVE_ROLLOUT_DRIVER_WEBHOOK_SECRET");
  }

  @Test
  void aSigningSecretOnTheCommandLineDoesNotStart() {
    assertThatThrownBy(
            () ->
                create(
                    webhook(
                        Optional.empty(),
                        WebhookDriverExecutorTest.SECRET,
                        List.of("-Xmx1g", "-Dfleetwave.rollout.driver-webhook.secret=whsec_x"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "fleetwave.rollout.driver-webhook.secret was given on the command line")
        .hasMessageNotContaining(WebhookDriverExecutorTest.SECRET);
  }

  @Test
  void theSigningSecretIsReadFromItsFileWhichWinsOverTheValue() throws Exception {
    Path file = dir.resolve("webhook-secret");
    Files.writeString(file, WebhookDriverExecutorTest.SECRET + "\n");
    assertThat(create(webhook(Optional.of(file), "whsec_bad", List.of())))
        .isInstanceOf(WebhookDriverExecutor.class);

    Path missing = dir.resolve("missing");
    assertThatThrownBy(() -> create(webhook(Optional.of(missing), null, List.of())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "fleetwave.rollout.driver-webhook.secret-file: cannot read " + missing);
  }

  @Test
  void aKubernetesJobNeedsAReadableJobTemplate() throws Exception {
    assertThatThrownBy(() -> create(settings("kubernetes-job", null, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs fleetwave.rollout.driver-job.template");
    Path missing = dir.resolve("missing.yaml");
    assertThatThrownBy(
            () ->
                DriverExecutorProducer.create(
                    settings("kubernetes-job", null, missing.toString()),
                    () -> null,
                    List.of(),
                    new ObjectMapper()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("driver job template " + missing);

    Path template = dir.resolve("job.yaml");
    Files.writeString(template, KubernetesJobDriverExecutorTest.TEMPLATE);
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      DriverChangeExecutor job =
          DriverExecutorProducer.create(
              settings("kubernetes-job", null, template.toString()),
              () -> client,
              List.of(),
              new ObjectMapper());
      assertThat(job).isInstanceOf(KubernetesJobDriverExecutor.class);
      assertThat(((KubernetesJobDriverExecutor) job).namespace()).isEqualTo("gpu-ops");
    }
  }

  @Test
  void theDemosSimulatorDoesNotExistInTheProductionControlPlane() {
    assertThatThrownBy(
            () ->
                DriverExecutorProducer.create(
                    settings("simulator", null, null), () -> null, List.of(), new ObjectMapper()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "fleetwave.rollout.driver-executor=simulator is not a driver executor; expected one of"
                + " [none, webhook, kubernetes-job]");
  }
}
