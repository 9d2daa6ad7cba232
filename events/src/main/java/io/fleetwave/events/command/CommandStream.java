package io.fleetwave.events.command;

/**
 * The two streams the control plane sends on, each for its own kind of record. A signature names
 * the stream its record was issued for ({@link
 * io.fleetwave.events.codec.CommandCodec#signingInput}), so a record moved to the other stream is
 * refused: a spec put on the commands topic would otherwise bypass the desired-spec generation
 * rule, and a one-shot command on the compacted topic would outlive its purpose.
 */
public enum CommandStream {
  /** {@code fleet.node-desired}, compacted: a node's full desired spec. */
  DESIRED("desired-spec"),
  /** {@code fleet.node-commands}: one-shot commands (GPU reset, re-probe). */
  COMMANDS("one-shot-command");

  private final String purpose;

  CommandStream(String purpose) {
    this.purpose = purpose;
  }

  /** The word the signature covers. */
  public String purpose() {
    return purpose;
  }

  /** The only stream this kind of command may travel on. */
  public static CommandStream of(NodeCommand command) {
    return switch (command) {
      case ApplyNodeSpec spec -> DESIRED;
      case ResetGpu reset -> COMMANDS;
      case Reprobe reprobe -> COMMANDS;
    };
  }
}
