package io.fleetwave.controlplane.security;

import io.quarkus.oidc.TenantResolver;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Which OIDC tenant checks a request once the dashboard's sign-in is on ({@code
 * quarkus.oidc.dashboard.tenant-enabled}): a bearer token is always the default (service) tenant's;
 * a browser on a dashboard page goes to the web-app tenant {@value #TENANT}, which sends it to the
 * provider's sign-in; on /api the web-app tenant is asked only when its session cookie is there, so
 * a call with no credentials is a 401 (a problem), never a redirect a CLI would follow. Quarkus'
 * {@code hybrid} type would redirect those too.
 */
@ApplicationScoped
public class DashboardSignInTenant implements TenantResolver {
  static final String TENANT = "dashboard";

  /** Quarkus names a tenant's session cookie q_session_TENANT (chunks get a suffix). */
  private static final String SESSION_COOKIE = "q_session_" + TENANT;

  private final boolean enabled;

  public DashboardSignInTenant(
      @ConfigProperty(name = "quarkus.oidc.dashboard.tenant-enabled") boolean enabled) {
    this.enabled = enabled;
  }

  @Override
  public String resolve(RoutingContext context) {
    if (!enabled || context.request().headers().contains(HttpHeaders.AUTHORIZATION)) {
      return null;
    }
    String path = context.normalizedPath();
    if (path.startsWith("/q/")) {
      return null;
    }
    if (path.startsWith("/api/")) {
      return hasSession(context) ? TENANT : null;
    }
    return TENANT;
  }

  private static boolean hasSession(RoutingContext context) {
    for (Cookie cookie : context.request().cookies()) {
      if (cookie.getName().startsWith(SESSION_COOKIE)) {
        return true;
      }
    }
    return false;
  }
}
