package io.fleetwave.agent.modules;

import java.io.Serial;

/** A kernel-module change that was refused or failed; the message says why and what holds it. */
public class ModuleException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  public ModuleException(String message) {
    super(message);
  }
}
