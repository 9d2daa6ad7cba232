package io.fleetwave.testfixtures;

import io.fleetwave.testfixtures.architecture.PackageCycles;
import org.junit.jupiter.api.Test;

/** No cycles between test-fixtures' packages (architecture, events, time). */
class ArchitectureTest {
  @Test
  void packagesHaveNoCycles() {
    PackageCycles.assertNone("io.fleetwave.testfixtures");
  }
}
