package io.fleetwave.controlplane.api;

import java.net.URI;

/** An RFC 9457 problem details body. */
public record Problem(URI type, String title, int status, String detail) {
  public static final String MEDIA_TYPE = "application/problem+json";
}
