package io.fleetwave.controlplane.logging;

import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.logging.MDC;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Puts the node or rollout an API call names in its path ({@code /api/v1/nodes/{name}/...}, {@code
 * /api/v1/rollouts/{id}/...}) into the MDC for the rest of the request. The request runs on a
 * Vert.x duplicated context, where Quarkus keeps the MDC, so every line logged for it carries the
 * node or rollout, whichever thread a Mutiny stage of it runs on; the next request starts on a
 * fresh context and inherits nothing.
 */
public class RequestLogContext {

  @ServerRequestFilter
  public void aboutWhatThePathNames(UriInfo uri) {
    MultivaluedMap<String, String> parameters = uri.getPathParameters();
    String path = uri.getPath();
    String node = parameters.getFirst("name");
    if (node != null && path.contains("/nodes/")) {
      MDC.put(LogContext.NODE, node); // no scope to close: the request's context ends with it
    }
    String rollout = parameters.getFirst("id");
    if (rollout != null && path.startsWith("/api/v1/rollouts/")) {
      MDC.put(LogContext.ROLLOUT, rollout);
    }
  }
}
