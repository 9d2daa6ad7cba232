package io.fleetwave.testsupport;

import io.fleetwave.testfixtures.architecture.PackageCycles;
import org.junit.jupiter.api.Test;

/**
 * No cycles between test-support's packages (kafka, logging, network, processes, services, suites).
 */
class ArchitectureTest {
  @Test
  void packagesHaveNoCycles() {
    PackageCycles.assertNone("io.fleetwave.testsupport");
  }
}
