package io.fleetwave.controlplane.spec;

import java.io.Serial;
import java.util.List;

/** A spec or command that is well formed but cannot be applied to the node; nothing was sent. */
public class InvalidSpecException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final transient List<FieldError> errors;

  public InvalidSpecException(String detail, List<FieldError> errors) {
    super(detail);
    this.errors = List.copyOf(errors);
  }

  /** Every problem found, each naming its field. */
  public List<FieldError> errors() {
    return errors;
  }
}
