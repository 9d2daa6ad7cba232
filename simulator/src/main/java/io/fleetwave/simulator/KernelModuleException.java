package io.fleetwave.simulator;

import java.util.List;

/**
 * A kernel module operation refused as the kernel refuses it: EBUSY while the module is in use
 * (holders names what uses it), or ENOENT-like for unknown modules.
 */
public class KernelModuleException extends RuntimeException {
  private final String module;
  private final List<String> holders;

  public KernelModuleException(String module, String reason, List<String> holders) {
    super("module " + module + ": " + reason);
    this.module = module;
    this.holders = List.copyOf(holders);
  }

  public String module() {
    return module;
  }

  /** Dependent modules and processes/clients holding /dev/nvidia*, in that order; may be empty. */
  public List<String> holders() {
    return holders;
  }
}
