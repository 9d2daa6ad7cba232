package io.fleetwave.agent.kubernetes;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The agent's own Node object, read once at start when it runs in a pod: its labels, the zone among
 * them. Whether it can be read is decided here without the Kubernetes client; the client is loaded
 * only to read. The read is bounded and never fails the agent: forbidden, absent, unanswered or
 * broken, it comes back as {@link Lookup.Unavailable} with why.
 */
public final class NodeObject {
  /** The well-known label of a node's failure domain. */
  public static final String ZONE_LABEL = "topology.kubernetes.io/zone";

  /** fabric8's variable for the token file; the agent looks where the client will look. */
  static final String TOKEN_VARIABLE = "KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN";

  static final String TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

  private NodeObject() {}

  /** What a lookup found. */
  public sealed interface Lookup {
    /**
     * @param zone the node's {@value #ZONE_LABEL}, whatever the prefixes
     * @param labels the node's labels the prefixes keep
     */
    record Found(Optional<String> zone, Map<String, String> labels) implements Lookup {
      public Found {
        labels = Map.copyOf(labels);
      }
    }

    record Unavailable(String reason) implements Lookup {}
  }

  /**
   * Why the Node object is not read here, or empty when it is: in a pod (KUBERNETES_SERVICE_HOST
   * set, a service-account token mounted) that knows its node name.
   */
  public static Optional<String> notReadable(Map<String, String> env, Optional<String> nodeName) {
    if (!inPod(env)) {
      return Optional.of("not in a Kubernetes pod");
    }
    if (nodeName.isEmpty()) {
      return Optional.of(
          "the node name is not known: set NODE_NAME from spec.nodeName (downward API)");
    }
    return Optional.empty();
  }

  /** KUBERNETES_SERVICE_HOST is set and a service-account token is mounted. */
  public static boolean inPod(Map<String, String> env) {
    String host = env.get("KUBERNETES_SERVICE_HOST");
    if (host == null || host.isBlank()) {
      return false;
    }
    String token = env.getOrDefault(TOKEN_VARIABLE, TOKEN);
    return Files.isReadable(Path.of(token));
  }

  /**
   * Reads the node's labels within {@code bound}, keeping those whose key starts with one of {@code
   * prefixes} (all when none). The reader is created and used on a daemon thread of its own, so the
   * bound holds whatever the client does, and a client that cannot even be configured is one more
   * reason the Node object is unavailable.
   */
  public static Lookup read(
      Supplier<NodeReader> reader, String node, List<String> prefixes, Duration bound) {
    CompletableFuture<Optional<Map<String, String>>> read = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .name("fleetwave-node-object")
        .start(
            () -> {
              try {
                read.complete(reader.get().labels(node));
              } catch (Throwable e) {
                read.completeExceptionally(e);
              }
            });
    try {
      return read.get(bound.toMillis(), TimeUnit.MILLISECONDS)
          .<Lookup>map(
              labels ->
                  new Lookup.Found(
                      Optional.ofNullable(labels.get(ZONE_LABEL)).filter(z -> !z.isBlank()),
                      filtered(labels, prefixes)))
          .orElseGet(() -> new Lookup.Unavailable("no Node named " + node + " in the cluster"));
    } catch (TimeoutException e) {
      return new Lookup.Unavailable("the API server did not answer within " + bound);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      return new Lookup.Unavailable(
          cause instanceof NodeUnreadableException ? cause.getMessage() : cause.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Lookup.Unavailable("interrupted");
    }
  }

  /** The labels whose key starts with one of the prefixes; all of them when there is none. */
  static Map<String, String> filtered(Map<String, String> labels, List<String> prefixes) {
    Map<String, String> kept = new LinkedHashMap<>();
    new TreeMap<>(labels)
        .forEach(
            (key, value) -> {
              if (prefixes.isEmpty() || prefixes.stream().anyMatch(key::startsWith)) {
                kept.put(key, value);
              }
            });
    return kept;
  }
}
