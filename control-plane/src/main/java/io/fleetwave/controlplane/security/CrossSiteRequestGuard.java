package io.fleetwave.controlplane.security;

import io.fleetwave.controlplane.problem.Problem;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Refuses every change (any method but GET, HEAD and OPTIONS) sent as {@code text/plain}, {@code
 * application/x-www-form-urlencoded} or {@code multipart/form-data}: the content types a page on
 * another site can make a browser send without asking the API first (a CORS "simple request").
 * Every change of the API takes JSON or YAML, which a browser only sends cross-site after a
 * preflight that CORS (closed by default) refuses; so a request a user's browser was tricked into
 * sending never reaches an endpoint, whatever credentials ride along.
 *
 * <p>A change with no body needs no content type at all, so a cross-site page can send one without
 * a preflight; where a browser attaches the sign-in cookie to it (same-site pages, or any site for
 * a lax cookie), the cookie alone would authenticate it. So every change that carries a cookie must
 * also prove it comes from the dashboard's own origin, whatever its content type: {@code
 * Sec-Fetch-Site: same-origin} where the browser sends fetch metadata, else an {@code Origin}
 * naming the host the request was sent to. Browsers set both themselves on every fetch that changes
 * state (a page cannot forge them); a change without a cookie carries its credentials in a header
 * no other site can make a browser send, and is not asked.
 */
public class CrossSiteRequestGuard {
  private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS");
  private static final Set<String> SIMPLE_TYPES =
      Set.of("text/plain", "application/x-www-form-urlencoded", "multipart/form-data");

  @ServerRequestFilter(preMatching = true)
  public Response refuseSimpleCrossSiteChanges(ContainerRequestContext request) {
    if (SAFE_METHODS.contains(request.getMethod())) {
      return null;
    }
    if (request.getHeaders().containsKey(HttpHeaders.COOKIE)) {
      Optional<String> notSameOrigin =
          SameOrigin.refusal(
              request.getHeaders(), request.getUriInfo().getRequestUri().getRawAuthority());
      if (notSameOrigin.isPresent()) {
        Problem problem =
            new Problem(
                URI.create("urn:fleetwave:problem:cross-site"),
                "Forbidden",
                403,
                "a change authenticated by the sign-in cookie must come from the dashboard's own"
                    + " origin: "
                    + notSameOrigin.get());
        return Response.status(403).type(Problem.MEDIA_TYPE).entity(problem).build();
      }
    }
    MediaType type = request.getMediaType();
    if (type == null) {
      return null;
    }
    String essence = (type.getType() + "/" + type.getSubtype()).toLowerCase(Locale.ROOT);
    if (!SIMPLE_TYPES.contains(essence)) {
      return null;
    }
    Problem problem =
        new Problem(
            URI.create("urn:fleetwave:problem:unsupported-content-type"),
            "Unsupported Media Type",
            415,
            "changes are not accepted as "
                + essence
                + " (a content type any web page can make a browser send); send"
                + " application/json, or application/yaml for MIG config files");
    return Response.status(415).type(Problem.MEDIA_TYPE).entity(problem).build();
  }
}
