package io.fleetwave.controlplane.security;

/** Nothing can be signed: no private key is configured. */
public class SigningKeyMissingException extends RuntimeException {
  public SigningKeyMissingException(String message) {
    super(message);
  }
}
