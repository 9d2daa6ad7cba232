package io.fleetwave.simulator;

import java.io.Serial;
import java.util.List;

/**
 * A kernel module operation refused as the kernel refuses it: EBUSY while the module is in use
 * (holders names what uses it), or ENOENT-like for unknown modules.
 */
public class KernelModuleException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final String module;
  // transient: never Java-serialized (nothing here serializes exceptions); read in this JVM.
  private final transient List<String> holders;

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
