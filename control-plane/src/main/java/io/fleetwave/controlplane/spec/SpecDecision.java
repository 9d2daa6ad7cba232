package io.fleetwave.controlplane.spec;

import java.util.List;

/** What {@link SpecValidator} says about a request: a draft to publish, or every problem. */
public sealed interface SpecDecision {
  record Valid(SpecDraft draft) implements SpecDecision {}

  record Invalid(List<FieldError> errors) implements SpecDecision {
    public Invalid {
      errors = List.copyOf(errors);
    }
  }
}
