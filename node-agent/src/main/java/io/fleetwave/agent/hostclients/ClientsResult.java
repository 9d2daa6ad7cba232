package io.fleetwave.agent.hostclients;

import java.util.List;

/**
 * What stopping or starting the host GPU clients did.
 *
 * @param done units stopped (or started), in order
 * @param notRunning configured units that were not loaded or not active, left alone
 * @param warnings why nothing was done where that is the case (no systemd): the agent turns each
 *     into a warning event
 */
public record ClientsResult(List<String> done, List<String> notRunning, List<String> warnings) {
  public ClientsResult {
    done = List.copyOf(done);
    notRunning = List.copyOf(notRunning);
    warnings = List.copyOf(warnings);
  }
}
