package io.fleetwave.controlplane.security;

import io.fleetwave.controlplane.problem.Problem;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jose4j.jwt.consumer.ErrorCodeValidator;
import org.jose4j.jwt.consumer.ErrorCodes;
import org.jose4j.jwt.consumer.InvalidJwtException;

/**
 * 401 and 403 as application/problem+json. The detail says what was wrong with a refused token
 * (expired, another issuer, a signature that does not verify) from the verifier's error codes, and
 * never repeats the token: the verifier's own messages quote it, so they are not passed on.
 */
public class SecurityProblems {
  private static final String CHALLENGE = "Bearer";

  @ServerExceptionMapper
  public Response noToken(UnauthorizedException e) {
    return unauthorized(
        "no-token",
        "this endpoint needs a bearer token (Authorization: Bearer TOKEN) from the identity"
            + " provider; the demo prints one at start");
  }

  @ServerExceptionMapper
  public Response badToken(AuthenticationFailedException e) {
    return unauthorized("invalid-token", "the bearer token was refused: " + reason(e));
  }

  @ServerExceptionMapper
  public Response wrongRole(ForbiddenException e) {
    Problem problem =
        new Problem(
            URI.create("urn:fleetwave:problem:forbidden"),
            "Forbidden",
            403,
            "the token's roles do not allow this; it needs one of the roles the API reference lists"
                + " for it (viewer: reads; operator: rollouts, specs, GPU resets; admin: MIG"
                + " configs, projection rebuild)");
    return Response.status(403).type(Problem.MEDIA_TYPE).entity(problem).build();
  }

  private static Response unauthorized(String type, String detail) {
    Problem problem =
        new Problem(URI.create("urn:fleetwave:problem:" + type), "Unauthorized", 401, detail);
    return Response.status(401)
        .type(Problem.MEDIA_TYPE)
        .header(HttpHeaders.WWW_AUTHENTICATE, CHALLENGE)
        .entity(problem)
        .build();
  }

  /** Why the verifier refused the token, in words; the verifier's own text is never used. */
  static String reason(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof InvalidJwtException invalid) {
        return reason(invalid);
      }
    }
    return "it is not a token this control plane accepts (malformed, or not signed by its identity"
        + " provider)";
  }

  private static String reason(InvalidJwtException invalid) {
    if (invalid.hasExpired()) {
      return "it has expired; get a new one from the identity provider";
    }
    for (ErrorCodeValidator.Error error : invalid.getErrorDetails()) {
      switch (error.getErrorCode()) {
        case ErrorCodes.ISSUER_INVALID, ErrorCodes.ISSUER_MISSING -> {
          return "it was issued by another issuer than the one this control plane trusts";
        }
        case ErrorCodes.SIGNATURE_INVALID, ErrorCodes.SIGNATURE_MISSING -> {
          return "its signature does not verify with the identity provider's key";
        }
        case ErrorCodes.NOT_YET_VALID, ErrorCodes.ISSUED_AT_INVALID_FUTURE -> {
          return "it is not valid yet (check the clocks)";
        }
        case ErrorCodes.AUDIENCE_INVALID, ErrorCodes.AUDIENCE_MISSING -> {
          return "it was issued for another audience";
        }
        default -> {
          // look at the next error
        }
      }
    }
    return "it is malformed or not signed by the identity provider";
  }
}
