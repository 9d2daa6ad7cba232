package io.fleetwave.agent.health;

import java.util.Objects;

/**
 * One probe's answer: HTTP 200 when {@code ok}, else 503, with {@code reason} as the one-line body.
 */
public record Verdict(boolean ok, String reason) {
  public Verdict {
    // One line, whatever a reason quoted (an NVML or Kafka message may span several).
    reason = Objects.requireNonNull(reason, "reason").strip().replaceAll("\\s*\\R\\s*", " ");
  }

  static Verdict ok(String reason) {
    return new Verdict(true, reason);
  }

  static Verdict failing(String reason) {
    return new Verdict(false, reason);
  }

  public int httpStatus() {
    return ok ? 200 : 503;
  }
}
