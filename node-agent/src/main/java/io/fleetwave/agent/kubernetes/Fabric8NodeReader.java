package io.fleetwave.agent.kubernetes;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.VersionInfo;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The one class of the agent that uses fabric8: a GET of one Node (or of the API server's version)
 * over the JDK's HttpClient, no retries, connect and request timeouts at the bound. Only {@link
 * NodeObject} creates it, and only in a pod, so an agent off Kubernetes never loads the client.
 */
public final class Fabric8NodeReader implements NodeReader, VersionReader {
  private final Config config;

  public Fabric8NodeReader(Config config, Duration bound) {
    int millis = (int) Math.max(1, bound.toMillis());
    this.config =
        new ConfigBuilder(Objects.requireNonNull(config, "config"))
            .withConnectionTimeout(millis)
            .withRequestTimeout(millis)
            .withRequestRetryBackoffLimit(0)
            .build();
  }

  /**
   * As a pod sees the API: KUBERNETES_SERVICE_HOST/PORT, the service-account token and CA (with
   * fabric8's usual system properties and variables able to override them).
   */
  public static Fabric8NodeReader inCluster(Duration bound) {
    return new Fabric8NodeReader(Config.autoConfigure(null), bound);
  }

  @Override
  public Optional<Map<String, String>> labels(String node) {
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(config)
            .withHttpClientFactory(new JdkHttpClientFactory())
            .build()) {
      Node found = client.nodes().withName(node).get();
      if (found == null) {
        return Optional.empty();
      }
      Map<String, String> labels = found.getMetadata().getLabels();
      return Optional.of(labels == null ? Map.of() : Map.copyOf(labels));
    } catch (KubernetesClientException e) {
      throw new NodeUnreadableException(why(e), e);
    }
  }

  /** GET /version: readable by every authenticated client (system:public-info-viewer). */
  @Override
  public String gitVersion() {
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(config)
            .withHttpClientFactory(new JdkHttpClientFactory())
            .build()) {
      VersionInfo version = client.getKubernetesVersion();
      if (version == null || version.getGitVersion() == null) {
        throw new NodeUnreadableException(
            "the API server at " + config.getMasterUrl() + " told no gitVersion at /version", null);
      }
      return version.getGitVersion();
    } catch (KubernetesClientException e) {
      throw new NodeUnreadableException(why(e), e);
    }
  }

  private String why(KubernetesClientException e) {
    int code = e.getCode();
    if (code == 403) {
      return "forbidden (HTTP 403): the agent's service account may not get nodes; grant it get on"
          + " nodes (a ClusterRole)";
    }
    if (code == 401) {
      return "unauthorized (HTTP 401): the API server refused the service-account token";
    }
    if (code <= 0) { // no HTTP answer at all: say what the transport said
      List<String> causes = new ArrayList<>();
      for (Throwable c = e.getCause(); c != null && causes.size() < 5; c = c.getCause()) {
        causes.add(c.toString());
      }
      return "the API server at "
          + config.getMasterUrl()
          + " did not answer: "
          + (causes.isEmpty() ? e.getMessage() : String.join(" <- ", causes));
    }
    return "the API server at "
        + config.getMasterUrl()
        + " answered HTTP "
        + code
        + ": "
        + e.getMessage();
  }
}
