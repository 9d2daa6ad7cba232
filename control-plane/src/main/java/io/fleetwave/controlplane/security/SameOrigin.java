package io.fleetwave.controlplane.security;

import jakarta.ws.rs.core.MultivaluedMap;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether a browser says a request comes from a page of the origin it was sent to: {@code
 * Sec-Fetch-Site} when present (the browser's own verdict), else {@code Origin} compared with the
 * host it was sent to. Default ports are left out of both sides, so a page served over HTTPS by a
 * proxy that speaks plain HTTP to the control plane still matches its host.
 */
final class SameOrigin {
  static final String FETCH_SITE = "Sec-Fetch-Site";
  static final String ORIGIN = "Origin";

  private SameOrigin() {}

  /**
   * Empty when the headers prove the same origin; otherwise why they do not.
   *
   * @param host the authority the request was sent to (its Host), host[:port]
   */
  static Optional<String> refusal(MultivaluedMap<String, String> headers, String host) {
    String site = headers.getFirst(FETCH_SITE);
    if (site != null) {
      return site.equalsIgnoreCase("same-origin")
          ? Optional.empty()
          : Optional.of("the browser says it was sent from a " + site + " page");
    }
    String origin = headers.getFirst(ORIGIN);
    if (origin == null) {
      return Optional.of("it carries neither Sec-Fetch-Site nor Origin");
    }
    Optional<String> originAuthority = authority(origin);
    if (host != null
        && originAuthority.isPresent()
        && originAuthority.get().equals(withoutDefaultPort(host.toLowerCase(Locale.ROOT)))) {
      return Optional.empty();
    }
    return Optional.of("its Origin " + origin + " is not the host it was sent to (" + host + ")");
  }

  private static Optional<String> authority(String origin) {
    try {
      URI uri = new URI(origin);
      if (uri.getScheme() == null || uri.getRawAuthority() == null) {
        return Optional.empty(); // "null", from sandboxed frames and privacy-sensitive contexts
      }
      return Optional.of(withoutDefaultPort(uri.getRawAuthority().toLowerCase(Locale.ROOT)));
    } catch (URISyntaxException e) {
      return Optional.empty();
    }
  }

  private static String withoutDefaultPort(String authority) {
    if (authority.endsWith(":80")) {
      return authority.substring(0, authority.length() - 3);
    }
    if (authority.endsWith(":443")) {
      return authority.substring(0, authority.length() - 4);
    }
    return authority;
  }
}
