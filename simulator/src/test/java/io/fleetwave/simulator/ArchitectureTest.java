package io.fleetwave.simulator;

import io.fleetwave.testfixtures.architecture.PackageCycles;
import org.junit.jupiter.api.Test;

/**
 * No cycles between the simulator's packages: the fleet file's model ({@code simulator.fleet}) is
 * read by the root, never the other way round.
 */
class ArchitectureTest {
  @Test
  void packagesHaveNoCycles() {
    PackageCycles.assertNone("io.fleetwave.simulator");
  }
}
