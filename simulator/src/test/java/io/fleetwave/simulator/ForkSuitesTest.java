package io.fleetwave.simulator;

import io.fleetwave.testsupport.suites.ForkSuites;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The simulator module's three fork suites run every IT of the module exactly once. */
class ForkSuitesTest {
  private static final List<Class<?>> SUITES =
      List.of(AgentOutageItsSuite.class, SpecFollowingItsSuite.class, FleetItsSuite.class);

  @Test
  void theSuitesSplitTheItsOfTheModule() {
    // failsafe runs every **/*ItsSuite.java of the module (simulator/pom.xml)
    ForkSuites.assertSplit(SUITES);
  }
}
