package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.problem.Problem;
import io.fleetwave.controlplane.problem.ProblemException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Renders every API error as application/problem+json. */
public class ProblemMapper {

  @ServerExceptionMapper
  public Response problem(ProblemException e) {
    return render(e);
  }

  /** The problem's status and body, extension members included. */
  static Response render(ProblemException e) {
    if (e.extensions().isEmpty()) {
      return respond(e.problem());
    }
    Problem problem = e.problem();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", problem.type());
    body.put("title", problem.title());
    body.put("status", problem.status());
    body.put("detail", problem.detail());
    if (!problem.errors().isEmpty()) {
      body.put("errors", problem.errors());
    }
    body.putAll(e.extensions());
    return Response.status(problem.status()).type(Problem.MEDIA_TYPE).entity(body).build();
  }

  /** Framework errors (unknown path, wrong method, unparsable body) in the same shape. */
  @ServerExceptionMapper
  public Response webApplication(WebApplicationException e) {
    int status = e.getResponse().getStatus();
    Response.StatusType info = Response.Status.fromStatusCode(status);
    String title = info == null ? "HTTP " + status : info.getReasonPhrase();
    return respond(new Problem(URI.create("about:blank"), title, status, e.getMessage()));
  }

  private static Response respond(Problem problem) {
    return Response.status(problem.status()).type(Problem.MEDIA_TYPE).entity(problem).build();
  }
}
