package io.fleetwave.controlplane.security;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
@Path("/api/v1/security")
public class SecurityResource {
  private final CommandSigning signing;

  public SecurityResource(CommandSigning signing) {
    this.signing = signing;
  }

  @GET
  @Path("/public-key")
  @Produces("application/x-pem-file")
  @Operation(
      summary = "The Ed25519 public key (X.509 PEM) agents verify specs and commands with",
      description = "Put it in the agents' configuration. 503 when no signing key is configured.")
  @APIResponse(responseCode = "200", description = "the PEM")
  @APIResponse(responseCode = "503", description = "no signing key configured")
  public String publicKey() {
    return signing.publicKeyPem();
  }
}
