package io.fleetwave.agent.kubernetes;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The API server's version as a pod reads it, bounded and never failing: said in words for a
 * message ("the API server is v1.29.4", or why it is not known). Only an error message needs it.
 */
public final class ApiServerVersion {
  private ApiServerVersion() {}

  /**
   * @param reader created only in a pod, on a daemon thread of its own, so the bound holds whatever
   *     the client does
   */
  public static String describe(
      Map<String, String> env, Supplier<VersionReader> reader, Duration bound) {
    if (!NodeObject.inPod(env)) {
      return "the API server's version is not known (not in a Kubernetes pod)";
    }
    CompletableFuture<String> read = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .name("fleetwave-api-version")
        .start(
            () -> {
              try {
                read.complete(reader.get().gitVersion());
              } catch (Throwable e) {
                read.completeExceptionally(e);
              }
            });
    try {
      return "the API server is " + read.get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return "the API server's version is not known (GET /version got no answer within "
          + bound
          + ")";
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      return "the API server's version is not known (GET /version: "
          + (cause instanceof NodeUnreadableException ? cause.getMessage() : cause.toString())
          + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "the API server's version is not known (interrupted)";
    }
  }
}
