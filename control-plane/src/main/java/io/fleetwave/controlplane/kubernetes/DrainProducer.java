package io.fleetwave.controlplane.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fleetwave.controlplane.rollout.drain.NoDrain;
import io.fleetwave.controlplane.rollout.drain.NodeDrain;
import io.fleetwave.controlplane.selector.LabelSelector;
import io.fleetwave.controlplane.selector.LabelSelectorException;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
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

  public DrainProducer(
      @ConfigProperty(name = ENABLED, defaultValue = "false") boolean enabled,
      @ConfigProperty(name = PREFIX + "timeout", defaultValue = "5m") Duration timeout,
      @ConfigProperty(name = PREFIX + "eviction-retry", defaultValue = "5s") Duration retry,
      @ConfigProperty(name = PREFIX + "full", defaultValue = "false") boolean full,
      @ConfigProperty(
              name = PREFIX + "gpu-resources",
              defaultValue = "nvidia.com/gpu,nvidia.com/mig-*")
          List<String> gpuResources,
      @ConfigProperty(name = PREFIX + "pod-selector") Optional<String> podSelector,
      @ConfigProperty(name = PREFIX + "wait-for-selector") Optional<String> waitForSelector,
      @ConfigProperty(name = PREFIX + "wait-for-timeout", defaultValue = "30m")
          Duration waitForTimeout,
      @ConfigProperty(
              name = PREFIX + "paused-operands",
              defaultValue = "device-plugin,gpu-feature-discovery,dcgm-exporter,dcgm,nvsm")
          List<String> operands,
      @ConfigProperty(name = "quarkus.kubernetes-client.request-timeout", defaultValue = "10s")
          Duration requestTimeout,
      Instance<KubernetesClient> client) {
    if (!enabled) {
      drain = new NoDrain();
      return;
    }
    DrainSettings settings =
        new DrainSettings(
            timeout,
            retry,
            new PodSelection(gpuResources, selector("pod-selector", podSelector), full),
            selector("wait-for-selector", waitForSelector),
            waitForTimeout,
            operands,
            requestTimeout);
    KubernetesClient kubernetes = client.get();
    if (kubernetes.getConfiguration().getRequestRetryBackoffLimit() > 0) {
      LOG.warnf(
          "quarkus.kubernetes-client.request-retry-backoff-limit=%d: the client retries every"
              + " eviction a PodDisruptionBudget refuses (and every 5xx) on its own, so a drain"
              + " may take longer than its bound; 0 leaves the retrying to Fleetwave",
          kubernetes.getConfiguration().getRequestRetryBackoffLimit());
    }
    drain = new KubernetesNodeDrain(kubernetes, settings);
    LOG.infof(
        "rollouts cordon and drain Kubernetes nodes (bound per node %s, %s)",
        settings.bound(), full ? "every pod leaves" : "GPU pods leave");
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
