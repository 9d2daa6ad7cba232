package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.identity.JoinTokenCreated;
import io.fleetwave.controlplane.identity.JoinTokenRequest;
import io.fleetwave.controlplane.identity.NodeEnrolment;
import io.fleetwave.controlplane.security.CurrentActor;
import io.fleetwave.controlplane.security.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.ResponseStatus;

/** Join tokens: how a host outside Kubernetes enrolls its node, once (as kubeadm's). */
@RolesAllowed(Roles.ADMIN)
@Path("/api/v1/join-tokens")
@Produces(MediaType.APPLICATION_JSON)
public class JoinTokensResource {
  private final NodeEnrolment enrolment;
  private final CurrentActor actor;

  public JoinTokensResource(NodeEnrolment enrolment, CurrentActor actor) {
    this.enrolment = enrolment;
    this.actor = actor;
  }

  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  @ResponseStatus(201)
  @Operation(
      summary = "Create a one-time join token for a host outside Kubernetes",
      description =
          "The token (<id>.<secret>) is shown once; only the hash of its secret is stored. It"
              + " enrolls the node it names (node is required), once, before it expires (default"
              + " 24 h).")
  public Uni<JoinTokenCreated> create(JoinTokenRequest request) {
    return actor
        .subject()
        .chain(subject -> enrolment.createJoinToken(request, subject.orElseThrow()));
  }
}
