package io.fleetwave.testsupport;

import io.fleetwave.testsupport.architecture.PackageCycles;
import org.junit.jupiter.api.Test;

/** No cycles between test-support's packages (events, logging, network, services, suites). */
class ArchitectureTest {
  @Test
  void packagesHaveNoCycles() {
    PackageCycles.assertNone("io.fleetwave.testsupport");
  }
}
