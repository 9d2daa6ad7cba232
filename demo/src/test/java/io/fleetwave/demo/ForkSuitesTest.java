package io.fleetwave.demo;

import io.fleetwave.testsupport.suites.ForkSuites;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The demo module's two fork suites run every IT of the module exactly once. */
class ForkSuitesTest {
  private static final List<Class<?>> SUITES =
      List.of(FleetProfilesItsSuite.class, OtherItsSuite.class);

  @Test
  void theSuitesSplitTheItsOfTheModule() {
    // failsafe runs every **/*ItsSuite.java of the module (demo/pom.xml)
    ForkSuites.assertSplit(SUITES);
  }
}
