package io.fleetwave.controlplane.rollout.driver;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fleetwave.controlplane.config.RolloutConfig;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Chooses the {@link DriverChangeExecutor} from {@value #EXECUTOR}: {@code none} (default), {@code
 * webhook}, {@code kubernetes-job}, or one a {@link DriverExecutorProvider} bean adds (the demo's
 * {@code simulator}). Built at start, so an unknown value, a missing URL or signing secret or a bad
 * Job template stops the start with a message naming the setting.
 */
@Startup
@ApplicationScoped
public class DriverExecutorProducer {
  public static final String EXECUTOR = "fleetwave.rollout.driver-executor";
  static final List<String> NAMES =
      List.of(
          UnconfiguredDriverExecutor.NAME,
          WebhookDriverExecutor.NAME,
          KubernetesJobDriverExecutor.NAME);
  private static final Logger LOG = Logger.getLogger(DriverExecutorProducer.class);

  /**
   * The settings, as configured.
   *
   * @param jvmArguments the JVM's command-line arguments, where no secret may be
   */
  record Settings(
      Optional<String> executor,
      Optional<String> webhookUrl,
      Duration webhookTimeout,
      Optional<Path> webhookSecretFile,
      Optional<String> webhookSecret,
      List<String> jvmArguments,
      Optional<String> jobTemplate,
      Optional<String> jobNamespace,
      Duration jobTimeout) {}

  private final DriverChangeExecutor executor;

  public DriverExecutorProducer(
      RolloutConfig config,
      Instance<KubernetesClient> kubernetes,
      Instance<DriverExecutorProvider> providers,
      ObjectMapper json) {
    this.executor =
        create(
            new Settings(
                config.driverExecutor(),
                config.driverWebhook().url(),
                config.driverWebhook().timeout(),
                config.driverWebhook().secretFile(),
                config.driverWebhook().secret(),
                ManagementFactory.getRuntimeMXBean().getInputArguments(),
                config.driverJob().template(),
                config.driverJob().namespace(),
                config.driverJob().timeout()),
            kubernetes::get,
            providers.stream().toList(),
            json);
    LOG.infof("driver changes: %s executor", this.executor.name());
  }

  @Produces
  @Singleton
  DriverChangeExecutor executor() {
    return executor;
  }

  @PreDestroy
  void close() throws Exception {
    if (executor instanceof AutoCloseable closeable) {
      closeable.close();
    }
  }

  /**
   * The executor the settings ask for.
   *
   * @throws IllegalArgumentException naming the setting that is wrong or missing
   */
  static DriverChangeExecutor create(
      Settings settings,
      Supplier<KubernetesClient> kubernetes,
      List<DriverExecutorProvider> providers,
      ObjectMapper json) {
    String name =
        settings
            .executor()
            .map(String::strip)
            .filter(s -> !s.isEmpty())
            .orElse(UnconfiguredDriverExecutor.NAME);
    Optional<DriverExecutorProvider> provided =
        providers.stream().filter(p -> p.name().equals(name)).findFirst();
    if (provided.isPresent()) {
      return provided.get().create();
    }
    return switch (name) {
      case UnconfiguredDriverExecutor.NAME -> new UnconfiguredDriverExecutor();
      case WebhookDriverExecutor.NAME ->
          new WebhookDriverExecutor(
              webhookUrl(
                  settings
                      .webhookUrl()
                      .filter(s -> !s.isBlank())
                      .orElseThrow(() -> missing(name, "fleetwave.rollout.driver-webhook.url"))),
              settings.webhookTimeout(),
              WebhookSigningKey.configured(
                  settings.webhookSecretFile(), settings.webhookSecret(), settings.jvmArguments()),
              Clock.systemUTC(),
              json);
      case KubernetesJobDriverExecutor.NAME -> {
        // The template first: a bad one is a configuration fault whatever the cluster.
        DriverJobTemplate template =
            DriverJobTemplate.load(
                Path.of(
                    settings
                        .jobTemplate()
                        .filter(s -> !s.isBlank())
                        .orElseThrow(
                            () -> missing(name, "fleetwave.rollout.driver-job.template"))));
        yield new KubernetesJobDriverExecutor(
            kubernetes.get(),
            template,
            settings.jobNamespace().orElse(null),
            settings.jobTimeout());
      }
      default ->
          throw new IllegalArgumentException(
              EXECUTOR
                  + "="
                  + name
                  + " is not a driver executor; expected one of "
                  + Stream.concat(NAMES.stream(), providers.stream().map(p -> p.name())).toList());
    };
  }

  private static URI webhookUrl(String value) {
    try {
      return new URI(value.strip());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "fleetwave.rollout.driver-webhook.url '" + value + "' is not a URL: " + e.getMessage());
    }
  }

  private static IllegalArgumentException missing(String executor, String key) {
    return new IllegalArgumentException(
        EXECUTOR + "=" + executor + " needs " + key + ", which is not set");
  }
}
