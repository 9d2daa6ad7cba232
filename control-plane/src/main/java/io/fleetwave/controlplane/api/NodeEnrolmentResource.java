package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.identity.Enrolled;
import io.fleetwave.controlplane.identity.EnrolmentRequest;
import io.fleetwave.controlplane.identity.NodeEnrolment;
import io.fleetwave.controlplane.identity.Readmitted;
import io.fleetwave.controlplane.identity.Revoked;
import io.fleetwave.controlplane.security.CurrentActor;
import io.fleetwave.controlplane.security.Roles;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.extensions.Extension;
import org.jboss.resteasy.reactive.ResponseStatus;

/**
 * A node enrolls its own public key with a bootstrap credential (no operator token: the credential
 * is the authentication); an administrator revokes the node.
 */
@Path("/api/v1/nodes/{name}/enrolment")
@Produces(MediaType.APPLICATION_JSON)
public class NodeEnrolmentResource {
  /**
   * The OpenAPI extension marking an operation authenticated by a node's bootstrap credential
   * rather than a bearer token (ApiSecurityIT reads it).
   */
  public static final String NODE_CREDENTIAL = "x-fleetwave-node-credential";

  private final NodeEnrolment enrolment;
  private final CurrentActor actor;

  public NodeEnrolmentResource(NodeEnrolment enrolment, CurrentActor actor) {
    this.enrolment = enrolment;
    this.actor = actor;
  }

  @PermitAll
  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  @ResponseStatus(201)
  @Operation(
      summary = "Enroll a node's own public key (called by the agent)",
      description =
          "Authenticated by the bootstrap credential in the body, not by a bearer token: a"
              + " one-time join token (joinToken) or the agent pod's Kubernetes service-account"
              + " token (serviceAccountToken, checked with the TokenReview API and bound to the"
              + " node its pod runs on). 401 with the reason when the credential does not allow it;"
              + " 429 with Retry-After past the attempts allowed per source address and per node."
              + " Every attempt is in the audit log, its credential (kind and id) as actor.",
      extensions = @Extension(name = NODE_CREDENTIAL, value = "true"))
  public Uni<Enrolled> enroll(
      @PathParam("name") String name, EnrolmentRequest request, @Context HttpServerRequest http) {
    SocketAddress remote = http.remoteAddress();
    return enrolment.enroll(name, request, remote == null ? "unknown" : remote.hostAddress());
  }

  @RolesAllowed(Roles.ADMIN)
  @DELETE
  @Operation(
      summary = "Revoke a node: none of its keys is accepted, and it enrolls no new one",
      description =
          "The node is revoked, not only its keys: every key it enrolled is refused by the"
              + " projection and the rollout engine from their next batch on (dead letters 'signed"
              + " by a revoked key'), every later enrolment for it is refused whatever its"
              + " credential (service-account token or join token), the rollout planner leaves it"
              + " out and the node view shows it revoked, until an admin re-admits it.")
  public Uni<Revoked> revoke(@PathParam("name") String name) {
    return actor.subject().chain(subject -> enrolment.revoke(name, subject.orElseThrow()));
  }

  @RolesAllowed(Roles.ADMIN)
  @POST
  @Path("/readmission")
  @Operation(
      summary = "Re-admit a revoked node, so that it may enroll a new key",
      description =
          "Ends the node's revocation: it may enroll again, with a new key and a bootstrap"
              + " credential (its old keys stay revoked), and rollouts planned from now on may"
              + " include it. 409 when the node is not revoked.")
  public Uni<Readmitted> readmit(@PathParam("name") String name) {
    return enrolment.readmit(name);
  }
}
