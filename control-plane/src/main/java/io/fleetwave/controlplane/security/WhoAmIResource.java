package io.fleetwave.controlplane.security;

import io.quarkus.security.identity.SecurityIdentity;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * Who the caller is, so a client (the dashboard) shows only the actions its role may take. The
 * server still checks every call; this only saves offering a button that would be refused.
 */
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
@Path("/api/v1/security/whoami")
@Produces(MediaType.APPLICATION_JSON)
public class WhoAmIResource {
  /** The caller: the token's subject and its Fleetwave roles (viewer, operator, admin). */
  public record Caller(String subject, List<String> roles) {}

  private static final List<String> KNOWN = List.of(Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN);

  private final SecurityIdentity identity;

  public WhoAmIResource(SecurityIdentity identity) {
    this.identity = identity;
  }

  @GET
  @Operation(summary = "The caller's subject and roles (viewer, operator, admin)")
  public Caller whoami() {
    return new Caller(
        CurrentActor.subjectOf(identity).orElse(null),
        KNOWN.stream().filter(identity::hasRole).toList());
  }
}
