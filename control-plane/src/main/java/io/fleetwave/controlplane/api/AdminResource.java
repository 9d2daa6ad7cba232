package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.problem.ProblemException;
import io.fleetwave.controlplane.projection.RebuildTimeoutException;
import io.fleetwave.controlplane.rebuild.ProjectionRebuild;
import io.fleetwave.controlplane.rebuild.RebuildReport;
import io.fleetwave.controlplane.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;

@RolesAllowed(Roles.ADMIN)
@Path("/api/v1/admin/projection")
@Produces(MediaType.APPLICATION_JSON)
public class AdminResource {
  private static final int DEFAULT_TIMEOUT_S = 120;
  private static final int MAX_TIMEOUT_S = 1800;

  private final ProjectionRebuild rebuild;

  public AdminResource(ProjectionRebuild rebuild) {
    this.rebuild = rebuild;
  }

  /** Runs on a worker thread (plain return type): the rebuild blocks on Kafka and PostgreSQL. */
  @POST
  @Path("/rebuild")
  @Operation(
      summary =
          "Replay fleet.node-events from offset 0 into a scratch schema and compare it with the"
              + " live projection row by row")
  public RebuildReport rebuild(
      @Parameter(description = "time bound in seconds, 1..1800 (default 120)")
          @QueryParam("timeoutSeconds")
          String timeoutSeconds) {
    Duration timeout = Duration.ofSeconds(parseTimeout(timeoutSeconds));
    try {
      return rebuild.rebuild(timeout);
    } catch (RebuildTimeoutException | io.smallrye.mutiny.TimeoutException e) {
      throw new ProblemException(
          504,
          "rebuild-timeout",
          "Projection rebuild timed out",
          e.getMessage() != null
              ? e.getMessage()
              : "projection rebuild did not finish within " + timeout.toSeconds() + " s");
    } catch (IllegalStateException e) {
      throw new ProblemException(
          409, "rebuild-failed", "Projection rebuild failed", e.getMessage());
    }
  }

  private static int parseTimeout(String text) {
    if (text == null || text.isEmpty()) {
      return DEFAULT_TIMEOUT_S;
    }
    try {
      int seconds = Integer.parseInt(text.strip());
      if (seconds >= 1 && seconds <= MAX_TIMEOUT_S) {
        return seconds;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw ProblemException.badRequest(
        "bad-timeout",
        "Invalid timeoutSeconds",
        "query parameter 'timeoutSeconds' must be an integer from 1 to "
            + MAX_TIMEOUT_S
            + ", got '"
            + text
            + "'");
  }
}
