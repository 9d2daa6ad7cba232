package io.fleetwave.demo;

import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.oidc.TenantIdentityProvider;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * The demo dashboard's sign-in, as Jupyter does it: the link the demo prints ({@code /?token=...})
 * stores the token, once the API's own OIDC check accepts it, in an HttpOnly, SameSite=Strict
 * cookie and redirects to {@code /}, so the token leaves the address bar (and the browser's
 * history); afterwards a request that carries the cookie and no Authorization header is
 * authenticated with the cookie's token, checked like any bearer token. Strict same-site cookies
 * are not sent with cross-site requests, and the API refuses a change that carries a cookie unless
 * the browser says it comes from the dashboard's own origin (CrossSiteRequestGuard), so the cookie
 * cannot be used to forge a change.
 */
@ApplicationScoped
public class DashboardSignIn {
  static final String COOKIE = "fleetwave-token";

  /** After CORS (300), before anything that authenticates (200 and the REST layer). */
  private static final int PRIORITY = 250;

  void register(@Observes Filters filters) {
    filters.register(this::handle, PRIORITY);
  }

  private final TenantIdentityProvider identities;

  DashboardSignIn(TenantIdentityProvider identities) {
    this.identities = identities;
  }

  private void handle(RoutingContext context) {
    String token = context.request().getParam("token");
    if (token != null && isDashboard(context)) {
      // Only a token the API itself accepts becomes the cookie: a link with anything else (a
      // forged or expired token, text meant for the cookie header) signs nobody in.
      identities
          .authenticate(new AccessTokenCredential(token))
          .subscribe()
          .with(identity -> signIn(context, token), failure -> refuse(context));
      return;
    }
    if (context.request().getHeader(HttpHeaders.AUTHORIZATION) == null) {
      Cookie cookie = context.request().getCookie(COOKIE);
      if (cookie != null && !cookie.getValue().isBlank()) {
        context.request().headers().set(HttpHeaders.AUTHORIZATION, "Bearer " + cookie.getValue());
      }
    }
    context.next();
  }

  private static void signIn(RoutingContext context, String token) {
    context
        .response()
        .addCookie(
            Cookie.cookie(COOKIE, token)
                .setHttpOnly(true)
                .setSameSite(CookieSameSite.STRICT)
                .setPath("/"))
        .putHeader(HttpHeaders.LOCATION, "/")
        .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
        .putHeader("Referrer-Policy", "no-referrer")
        .setStatusCode(303)
        .end();
  }

  private static void refuse(RoutingContext context) {
    context
        .response()
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
        .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
        .putHeader("Referrer-Policy", "no-referrer")
        .setStatusCode(401)
        .end(
            "This sign-in link's token is not one this control plane accepts (expired, or not"
                + " issued by its identity): open the link the demo printed at its start.\n");
  }

  private static boolean isDashboard(RoutingContext context) {
    String path = context.normalizedPath();
    return HttpMethod.GET.equals(context.request().method())
        && (path.equals("/") || path.equals("/index.html"));
  }
}
