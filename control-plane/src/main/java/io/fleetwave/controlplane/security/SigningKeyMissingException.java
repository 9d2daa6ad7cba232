package io.fleetwave.controlplane.security;

import java.io.Serial;

/** Nothing can be signed: no private key is configured. */
public class SigningKeyMissingException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public SigningKeyMissingException(String message) {
    super(message);
  }
}
