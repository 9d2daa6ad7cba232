package io.fleetwave.controlplane.rollout.driver;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fleetwave.agent.sim.SimulatedFleet;
import io.fleetwave.controlplane.embedded.DemoFleet;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Chooses the {@link DriverChangeExecutor} from {@value #EXECUTOR}: {@code none} (default), {@code
 * webhook}, {@code kubernetes-job} or {@code simulator} (the default in demo mode). Built at start,
 * so an unknown value, a missing URL or a bad Job template stops the start with a message naming
 * the setting.
 */
@Startup
@ApplicationScoped
public class DriverExecutorProducer {
  public static final String EXECUTOR = "fleetwave.rollout.driver-executor";
  static final List<String> NAMES =
      List.of(
          UnconfiguredDriverExecutor.NAME,
          WebhookDriverExecutor.NAME,
          KubernetesJobDriverExecutor.NAME,
          SimulatedDriverExecutor.NAME);
  private static final Logger LOG = Logger.getLogger(DriverExecutorProducer.class);

  /** The settings, as configured. */
  record Settings(
      Optional<String> executor,
      boolean demo,
      Optional<String> webhookUrl,
      Duration webhookTimeout,
      Optional<String> jobTemplate,
      Optional<String> jobNamespace,
      Duration jobTimeout,
      Duration simulatorApplyDelay) {}

  private final DriverChangeExecutor executor;

  public DriverExecutorProducer(
      @ConfigProperty(name = EXECUTOR) Optional<String> executor,
      @ConfigProperty(name = "fleetwave.demo.enabled", defaultValue = "false") boolean demo,
      @ConfigProperty(name = "fleetwave.rollout.driver-webhook.url") Optional<String> webhookUrl,
      @ConfigProperty(name = "fleetwave.rollout.driver-webhook.timeout", defaultValue = "10s")
          Duration webhookTimeout,
      @ConfigProperty(name = "fleetwave.rollout.driver-job.template") Optional<String> jobTemplate,
      @ConfigProperty(name = "fleetwave.rollout.driver-job.namespace")
          Optional<String> jobNamespace,
      @ConfigProperty(name = "fleetwave.rollout.driver-job.timeout", defaultValue = "10s")
          Duration jobTimeout,
      @ConfigProperty(
              name = "fleetwave.rollout.driver-simulator.apply-delay",
              defaultValue = "300ms")
          Duration simulatorApplyDelay,
      Instance<KubernetesClient> kubernetes,
      DemoFleet demoFleet,
      ObjectMapper json) {
    this.executor =
        create(
            new Settings(
                executor,
                demo,
                webhookUrl,
                webhookTimeout,
                jobTemplate,
                jobNamespace,
                jobTimeout,
                simulatorApplyDelay),
            kubernetes::get,
            demoFleet::fleet,
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
      Supplier<Optional<SimulatedFleet>> fleet,
      ObjectMapper json) {
    String name =
        settings
            .executor()
            .map(String::strip)
            .filter(s -> !s.isEmpty())
            .orElse(
                settings.demo() ? SimulatedDriverExecutor.NAME : UnconfiguredDriverExecutor.NAME);
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
      case SimulatedDriverExecutor.NAME -> {
        if (!settings.demo()) {
          throw new IllegalArgumentException(
              EXECUTOR
                  + "=simulator drives the in-process demo fleet and needs demo mode"
                  + " (fleetwave.demo.enabled=true)");
        }
        yield new SimulatedDriverExecutor(fleet, settings.simulatorApplyDelay());
      }
      default ->
          throw new IllegalArgumentException(
              EXECUTOR + "=" + name + " is not a driver executor; expected one of " + NAMES);
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
