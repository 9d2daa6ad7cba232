package io.fleetwave.controlplane.logging;

import java.util.UUID;
import org.jboss.logging.MDC;

/**
 * The node and rollout in the log's MDC ({@code "node"}, {@code "rollout"}) for the lines logged
 * while a scope is open, on the thread that opened it. On a Vert.x duplicated context (a request, a
 * Mutiny callback of that request) Quarkus keeps the MDC in the context rather than the thread, so
 * it follows the request across threads; everywhere else it is the thread's. Closing a scope puts
 * back what was there before, so scopes nest (a node within a rollout).
 */
public final class LogContext {
  /** MDC key of the node a line is about. */
  public static final String NODE = "node";

  /** MDC key of the rollout (its id) a line is about. */
  public static final String ROLLOUT = "rollout";

  private LogContext() {}

  /** An open scope; closing it restores the previous value. */
  @FunctionalInterface
  public interface Scope extends AutoCloseable {
    @Override
    void close();
  }

  /** The lines logged until close are about this rollout. */
  public static Scope rollout(UUID rollout) {
    return put(ROLLOUT, rollout.toString());
  }

  /** The lines logged until close are about this node. */
  public static Scope node(String node) {
    return put(NODE, node);
  }

  /** Runs {@code work} with the node in the MDC: for callbacks that log on another thread. */
  public static void aboutNode(String node, Runnable work) {
    try (Scope _ = node(node)) {
      work.run();
    }
  }

  private static Scope put(String key, String value) {
    Object before = MDC.get(key);
    MDC.put(key, value);
    return () -> {
      if (before == null) {
        MDC.remove(key);
      } else {
        MDC.put(key, before);
      }
    };
  }
}
