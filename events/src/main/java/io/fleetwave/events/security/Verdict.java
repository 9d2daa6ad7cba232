package io.fleetwave.events.security;

import io.fleetwave.events.CommandEnvelope;
import java.util.Objects;

/** What the verifier says about one command. */
public sealed interface Verdict {
  CommandEnvelope command();

  default boolean accepted() {
    return this instanceof Accepted;
  }

  /** The command may be acted on. */
  record Accepted(CommandEnvelope command) implements Verdict {
    public Accepted {
      Objects.requireNonNull(command, "command");
    }
  }

  /** The command must be ignored, and the rejection reported. */
  record Rejected(CommandEnvelope command, Rejection rejection, String reason) implements Verdict {
    public Rejected {
      Objects.requireNonNull(command, "command");
      Objects.requireNonNull(rejection, "rejection");
      Objects.requireNonNull(reason, "reason");
    }
  }
}
