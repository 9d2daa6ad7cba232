package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.database.DatabaseFailures;
import io.fleetwave.controlplane.problem.Problem;
import io.vertx.core.VertxException;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.net.URI;
import java.util.concurrent.CompletionException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The API while PostgreSQL cannot be reached (stopped, restarting, connection cut): 503
 * problem+json with {@code Retry-After}, not a bare 500, and nothing to restart: the pool opens new
 * connections once the database is back. The exceptions that reach here for another reason are
 * answered 500 in the same shape, with the cause logged.
 */
public class DatabaseUnavailableMapper {
  private static final Logger LOG = Logger.getLogger(DatabaseUnavailableMapper.class);
  public static final int RETRY_AFTER_S = 5;

  @ServerExceptionMapper({VertxException.class, IOException.class, CompletionException.class})
  public Response unavailable(Exception e) {
    if (DatabaseFailures.unavailable(e)) {
      Problem problem =
          new Problem(
              URI.create("https://fleetwave.io/problems/database-unavailable"),
              "Database unavailable",
              503,
              "PostgreSQL cannot be reached now ("
                  + DatabaseFailures.summary(e)
                  + "); try again shortly");
      return Response.status(503)
          .type(Problem.MEDIA_TYPE)
          .header("Retry-After", RETRY_AFTER_S)
          .entity(problem)
          .build();
    }
    LOG.errorf(e, "request failed");
    Problem problem =
        new Problem(
            URI.create("about:blank"),
            "Internal Server Error",
            500,
            "the request failed: " + e.getClass().getSimpleName());
    return Response.status(500).type(Problem.MEDIA_TYPE).entity(problem).build();
  }
}
