package io.fleetwave.controlplane.facts;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Whether this replica has applied every fact fleet.control-facts held when it started: what
 * start-up work that must not contradict the log (the MIG config seed) waits for.
 */
@ApplicationScoped
public class FactsCaughtUp {
  private final CompletableFuture<Void> reached = new CompletableFuture<>();

  /** Whether every fact the topic held at start has been applied (without waiting). */
  public boolean isReached() {
    return reached.isDone() && !reached.isCompletedExceptionally();
  }

  public void reached() {
    reached.complete(null);
  }

  public void failed(Throwable cause) {
    reached.completeExceptionally(cause);
  }

  /**
   * Waits until every fact the topic held at start is applied.
   *
   * @throws IllegalStateException naming the bound or the cause when that did not happen
   */
  public void await(Duration bound) {
    try {
      reached.get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "the facts on fleet.control-facts were not applied within " + bound.toSeconds() + " s",
          e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "the facts on fleet.control-facts could not be read: " + e.getCause().getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the facts", e);
    }
  }
}
