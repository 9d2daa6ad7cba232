package io.fleetwave.controlplane.security;

import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Who is calling: the subject ({@code sub}) of the request's bearer token, the name every record of
 * a change carries as its actor (the audit log, spec records, rollout events). Empty for a request
 * without a valid token.
 */
@ApplicationScoped
public class CurrentActor {
  private final CurrentIdentityAssociation identities;

  public CurrentActor(CurrentIdentityAssociation identities) {
    this.identities = identities;
  }

  /** The caller of the current request, resolved without blocking. */
  public Uni<Optional<String>> subject() {
    return identities.getDeferredIdentity().map(CurrentActor::subjectOf);
  }

  /** The caller of the current request if it holds the role; empty otherwise or when anonymous. */
  public Uni<Optional<String>> subjectInRole(String role) {
    return identities
        .getDeferredIdentity()
        .map(identity -> identity.hasRole(role) ? subjectOf(identity) : Optional.empty());
  }

  /** The token's subject, else the principal's name; empty for an anonymous identity. */
  public static Optional<String> subjectOf(SecurityIdentity identity) {
    if (identity == null || identity.isAnonymous()) {
      return Optional.empty();
    }
    if (identity.getPrincipal() instanceof JsonWebToken token && token.getSubject() != null) {
      return Optional.of(token.getSubject());
    }
    return Optional.ofNullable(identity.getPrincipal().getName());
  }
}
