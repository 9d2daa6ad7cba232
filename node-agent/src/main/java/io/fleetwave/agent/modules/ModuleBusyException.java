package io.fleetwave.agent.modules;

import java.util.List;

/** rmmod refused with EBUSY; {@link #holders()} names what was found holding the module. */
public class ModuleBusyException extends ModuleException {
  private final String module;
  private final List<String> holders;

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
