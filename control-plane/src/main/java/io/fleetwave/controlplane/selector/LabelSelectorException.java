package io.fleetwave.controlplane.selector;

/** A label selector that does not parse; the message says where and why. */
public class LabelSelectorException extends IllegalArgumentException {
  public LabelSelectorException(String message) {
    super(message);
  }
}
