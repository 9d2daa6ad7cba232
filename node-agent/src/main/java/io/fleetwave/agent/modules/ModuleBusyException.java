package io.fleetwave.agent.modules;

import java.io.Serial;
import java.util.List;

/** rmmod refused with EBUSY; {@link #holders()} names what was found holding the module. */
public class ModuleBusyException extends ModuleException {
  @Serial private static final long serialVersionUID = 1L;

  private final String module;
  // transient: never Java-serialized (nothing here serializes exceptions); read in this JVM.
  private final transient List<String> holders;

  public ModuleBusyException(String module, List<String> holders, String message) {
    super(message);
    this.module = module;
    this.holders = List.copyOf(holders);
  }

  public String module() {
    return module;
  }

  public List<String> holders() {
    return holders;
  }
}
