package io.fleetwave.agent.nvml;

import java.io.Serial;

/** An NVML call that did not return NVML_SUCCESS: its code, name and NVML's own description. */
public class NvmlException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final int code;

  public NvmlException(String function, int code, String description) {
    super(function + ": " + NvmlReturn.name(code) + " (" + description + ")");
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** "NVML_ERROR_X (description)", without the function, for GPU operation messages. */
  public String reason() {
    String message = getMessage();
    return message.substring(message.indexOf(": ") + 2);
  }
}
