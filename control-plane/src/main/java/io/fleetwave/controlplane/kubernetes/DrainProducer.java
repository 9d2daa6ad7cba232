package io.fleetwave.controlplane.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fleetwave.controlplane.config.KubernetesConfig;
import io.fleetwave.controlplane.rollout.drain.NoDrain;
import io.fleetwave.controlplane.rollout.drain.NodeDrain;
import io.fleetwave.core.selector.LabelSelector;
import io.fleetwave.core.selector.LabelSelectorException;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The rollout engine's {@link NodeDrain}: Kubernetes cordon and drain with {@value #ENABLED}{@code
 * =true}, otherwise none (nodes stay in service while they change). A selector that does not parse
 * stops the start with a message naming the setting.
 */
@ApplicationScoped
public class DrainProducer {
  static final String PREFIX = "fleetwave.kubernetes.drain.";
  static final String ENABLED = PREFIX + "enabled";
  private static final Logger LOG = Logger.getLogger(DrainProducer.class);

  private final NodeDrain drain;

  public DrainProducer(KubernetesConfig config, Instance<KubernetesClient> client) {
    KubernetesConfig.Drain settings = config.drain();
    if (!settings.enabled()) {
      drain = new NoDrain();
      return;
    }
    KubernetesClient kubernetes = client.get();
    DrainSettings drainSettings =
        new DrainSettings(
            settings.timeout(),
            settings.evictionRetry(),
            new PodSelection(
                settings.gpuResources(),
                selector("pod-selector", settings.podSelector()),
                settings.full()),
            selector("wait-for-selector", settings.waitForSelector()),
            settings.waitForTimeout(),
            settings.pausedOperands(),
            // the client's own bound on one call (quarkus.kubernetes-client.request-timeout)
            Duration.ofMillis(kubernetes.getConfiguration().getRequestTimeout()));
    if (kubernetes.getConfiguration().getRequestRetryBackoffLimit() > 0) {
      LOG.warnf(
          "quarkus.kubernetes-client.request-retry-backoff-limit=%d: the client retries every"
              + " eviction a PodDisruptionBudget refuses (and every 5xx) on its own, so a drain"
              + " may take longer than its bound; 0 leaves the retrying to Fleetwave",
          kubernetes.getConfiguration().getRequestRetryBackoffLimit());
    }
    drain = new KubernetesNodeDrain(kubernetes, drainSettings);
    LOG.infof(
        "rollouts cordon and drain Kubernetes nodes (bound per node %s, %s)",
        drainSettings.bound(), settings.full() ? "every pod leaves" : "GPU pods leave");
  }

  @Produces
  @Singleton
  NodeDrain drain() {
    return drain;
  }

  @PreDestroy
  void close() {
    if (drain instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        LOG.debugf("closing the drain: %s", e.getMessage());
      }
    }
  }

  private static LabelSelector selector(String setting, Optional<String> text) {
    try {
      return LabelSelector.parse(text.orElse(""));
    } catch (LabelSelectorException e) {
      throw new IllegalArgumentException(PREFIX + setting + ": " + e.getMessage(), e);
    }
  }
}
