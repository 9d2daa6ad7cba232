package io.fleetwave.core.selector;

import java.io.Serial;

/** A label selector that does not parse; the message says where and why. */
public class LabelSelectorException extends IllegalArgumentException {
  @Serial private static final long serialVersionUID = 1L;

  public LabelSelectorException(String message) {
    super(message);
  }
}
