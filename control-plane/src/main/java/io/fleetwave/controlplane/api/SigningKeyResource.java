package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.security.Roles;
import io.fleetwave.controlplane.spec.SpecService;
import io.fleetwave.controlplane.spec.SpecsResigned;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/** The key-rotation step that needs the control plane: re-signing the current specs. */
@RolesAllowed(Roles.ADMIN)
@Path("/api/v1/admin/specs")
@Produces(MediaType.APPLICATION_JSON)
public class SigningKeyResource {
  private final SpecService specs;

  public SigningKeyResource(SpecService specs) {
    this.specs = specs;
  }

  @POST
  @Path("/re-sign")
  @Operation(
      summary =
          "Publish every node's current desired spec again, at its generation, signed with the"
              + " current key (key rotation: after switching the signing key, before agents"
              + " retire the old one)")
  @APIResponse(responseCode = "200", description = "the key id and how many specs were published")
  @APIResponse(responseCode = "503", description = "no signing key, or Kafka did not acknowledge")
  public Uni<SpecsResigned> reSign() {
    return specs.resignAll();
  }
}
