package io.fleetwave.agent.modules;

/** A kernel-module change that was refused or failed; the message says why and what holds it. */
public class ModuleException extends RuntimeException {
  public ModuleException(String message) {
    super(message);
  }
}
