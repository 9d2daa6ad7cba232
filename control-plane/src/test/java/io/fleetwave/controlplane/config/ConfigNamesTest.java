package io.fleetwave.controlplane.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Every setting docs/configuration.md and application.properties document keeps its name and its
 * default now that the settings are mappings.
 */
class ConfigNamesTest {

  private static SmallRyeConfig config(Map<String, String> properties) {
    return new SmallRyeConfigBuilder()
        .withConverter(Duration.class, 200, new DurationConverter()) // Quarkus' "10s" form
        .withMapping(ProjectionConfig.class)
        .withMapping(CommandsConfig.class)
        .withMapping(RolloutConfig.class)
        .withMapping(KubernetesConfig.class)
        .withMapping(KafkaConfig.class)
        .withSources(new PropertiesConfigSource(properties, "test", 100))
        .withValidateUnknown(false)
        .build();
  }

  @Test
  void withNothingSetEveryDefaultIsTheDocumentedOne() {
    SmallRyeConfig config = config(Map.of());

    ProjectionConfig projection = config.getConfigMapping(ProjectionConfig.class);
    assertThat(projection.retry().initialBackoff()).isEqualTo(Duration.ofMillis(100));
    assertThat(projection.retry().maxBackoff()).isEqualTo(Duration.ofSeconds(10));
    assertThat(projection.attemptTimeout()).isEqualTo(Duration.ofSeconds(60));

    CommandsConfig commands = config.getConfigMapping(CommandsConfig.class);
    assertThat(commands.privateKey()).isEmpty();
    assertThat(commands.privateKeyFile()).isEmpty();
    assertThat(commands.sendTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(commands.lifetime()).isEqualTo(Duration.ofMinutes(5));

    RolloutConfig rollout = config.getConfigMapping(RolloutConfig.class);
    assertThat(rollout.engine().enabled()).isTrue();
    assertThat(rollout.engine().tick()).isEqualTo(Duration.ofMillis(250));
    assertThat(rollout.engine().timeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(rollout.requestWait()).isEqualTo(Duration.ofSeconds(10));
    assertThat(rollout.driverExecutor()).isEmpty();
    assertThat(rollout.driverWebhook().url()).isEmpty();
    assertThat(rollout.driverWebhook().timeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(rollout.driverJob().template()).isEmpty();
    assertThat(rollout.driverJob().namespace()).isEmpty();
    assertThat(rollout.driverJob().timeout()).isEqualTo(Duration.ofSeconds(10));

    KubernetesConfig kubernetes = config.getConfigMapping(KubernetesConfig.class);
    assertThat(kubernetes.gateLabels().enabled()).isFalse();
    KubernetesConfig.Drain drain = kubernetes.drain();
    assertThat(drain.enabled()).isFalse();
    assertThat(drain.timeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(drain.evictionRetry()).isEqualTo(Duration.ofSeconds(5));
    assertThat(drain.full()).isFalse();
    assertThat(drain.gpuResources()).containsExactly("nvidia.com/gpu", "nvidia.com/mig-*");
    assertThat(drain.podSelector()).isEmpty();
    assertThat(drain.waitForSelector()).isEmpty();
    assertThat(drain.waitForTimeout()).isEqualTo(Duration.ofMinutes(30));
    assertThat(drain.pausedOperands())
        .containsExactly("device-plugin", "gpu-feature-discovery", "dcgm-exporter", "dcgm", "nvsm");

    KafkaConfig kafka = config.getConfigMapping(KafkaConfig.class);
    assertThat(kafka.probeInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(kafka.probeTimeout()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void everyDocumentedNameIsRead() {
    SmallRyeConfig config =
        config(
            Map.ofEntries(
                Map.entry("fleetwave.projection.retry.initial-backoff", "1s"),
                Map.entry("fleetwave.projection.retry.max-backoff", "2s"),
                Map.entry("fleetwave.projection.attempt-timeout", "3s"),
                Map.entry("fleetwave.commands.private-key", "KEY"),
                Map.entry("fleetwave.commands.send-timeout", "4s"),
                Map.entry("fleetwave.commands.lifetime", "5s"),
                Map.entry("fleetwave.rollout.engine.enabled", "false"),
                Map.entry("fleetwave.rollout.engine.tick", "6s"),
                Map.entry("fleetwave.rollout.engine.timeout", "7s"),
                Map.entry("fleetwave.rollout.request-wait", "8s"),
                Map.entry("fleetwave.rollout.driver-executor", "webhook"),
                Map.entry("fleetwave.rollout.driver-webhook.url", "http://hook"),
                Map.entry("fleetwave.rollout.driver-webhook.timeout", "9s"),
                Map.entry("fleetwave.rollout.driver-webhook.secret", "whsec_S"),
                Map.entry("fleetwave.rollout.driver-webhook.secret-file", "/hook/secret"),
                Map.entry("fleetwave.rollout.driver-job.template", "/job.yaml"),
                Map.entry("fleetwave.rollout.driver-job.namespace", "gpu"),
                Map.entry("fleetwave.rollout.driver-job.timeout", "10s"),
                Map.entry("fleetwave.kubernetes.gate-labels.enabled", "true"),
                Map.entry("fleetwave.kubernetes.drain.enabled", "true"),
                Map.entry("fleetwave.kubernetes.drain.timeout", "11s"),
                Map.entry("fleetwave.kubernetes.drain.eviction-retry", "12s"),
                Map.entry("fleetwave.kubernetes.drain.full", "true"),
                Map.entry("fleetwave.kubernetes.drain.gpu-resources", "amd.com/gpu"),
                Map.entry("fleetwave.kubernetes.drain.pod-selector", "a=b"),
                Map.entry("fleetwave.kubernetes.drain.wait-for-selector", "job-type=batch"),
                Map.entry("fleetwave.kubernetes.drain.wait-for-timeout", "13s"),
                Map.entry("fleetwave.kubernetes.drain.paused-operands", "dcgm")));

    ProjectionConfig projection = config.getConfigMapping(ProjectionConfig.class);
    assertThat(
            List.of(
                projection.retry().initialBackoff(),
                projection.retry().maxBackoff(),
                projection.attemptTimeout()))
        .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3));

    CommandsConfig commands = config.getConfigMapping(CommandsConfig.class);
    assertThat(commands.privateKey()).contains("KEY");
    assertThat(List.of(commands.sendTimeout(), commands.lifetime()))
        .containsExactly(Duration.ofSeconds(4), Duration.ofSeconds(5));

    RolloutConfig rollout = config.getConfigMapping(RolloutConfig.class);
    assertThat(rollout.engine().enabled()).isFalse();
    assertThat(
            List.of(
                rollout.engine().tick(),
                rollout.engine().timeout(),
                rollout.requestWait(),
                rollout.driverWebhook().timeout(),
                rollout.driverJob().timeout()))
        .containsExactly(
            Duration.ofSeconds(6),
            Duration.ofSeconds(7),
            Duration.ofSeconds(8),
            Duration.ofSeconds(9),
            Duration.ofSeconds(10));
    assertThat(rollout.driverWebhook().secret()).contains("whsec_S");
    assertThat(rollout.driverWebhook().secretFile()).contains(Path.of("/hook/secret"));
    assertThat(
            List.of(
                rollout.driverExecutor(),
                rollout.driverWebhook().url(),
                rollout.driverJob().template(),
                rollout.driverJob().namespace()))
        .containsExactly(
            Optional.of("webhook"),
            Optional.of("http://hook"),
            Optional.of("/job.yaml"),
            Optional.of("gpu"));

    KubernetesConfig kubernetes = config.getConfigMapping(KubernetesConfig.class);
    assertThat(kubernetes.gateLabels().enabled()).isTrue();
    KubernetesConfig.Drain drain = kubernetes.drain();
    assertThat(drain.enabled()).isTrue();
    assertThat(drain.full()).isTrue();
    assertThat(List.of(drain.timeout(), drain.evictionRetry(), drain.waitForTimeout()))
        .containsExactly(Duration.ofSeconds(11), Duration.ofSeconds(12), Duration.ofSeconds(13));
    assertThat(drain.gpuResources()).containsExactly("amd.com/gpu");
    assertThat(drain.podSelector()).contains("a=b");
    assertThat(drain.waitForSelector()).contains("job-type=batch");
    assertThat(drain.pausedOperands()).containsExactly("dcgm");
  }
}
