package io.fleetwave.agent.modules;

import java.util.List;

/**
 * What a load or unload did.
 *
 * @param done modules loaded or unloaded, in the order it happened
 * @param skipped modules left alone (not loaded, or optional and absent), with why
 */
public record ModuleChange(List<String> done, List<String> skipped) {
  public ModuleChange {
    done = List.copyOf(done);
    skipped = List.copyOf(skipped);
  }
}
