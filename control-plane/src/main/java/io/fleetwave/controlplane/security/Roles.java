package io.fleetwave.controlplane.security;

/**
 * The API's roles: Fleetwave's own client roles in the identity provider (Keycloak's {@code
 * resource_access.<client id>.roles}, or the claim {@code quarkus.oidc.roles.role-claim-path}
 * names), never realm-wide roles or groups. Each role includes the ones before it: the endpoints
 * list every role that may call them, so nothing depends on a role hierarchy being configured.
 */
public final class Roles {
  /** Every read: nodes, specs, rollouts, MIG configs, the audit log, the signing public key. */
  public static final String VIEWER = "viewer";

  /** Rollouts and their actions, node specs, GPU resets; and every read. */
  public static final String OPERATOR = "operator";

  /** MIG config import, projection rebuild, keys; and everything an operator may do. */
  public static final String ADMIN = "admin";

  private Roles() {}
}
