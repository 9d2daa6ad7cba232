package io.fleetwave.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.testsupport.suites.ForkSuites;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The demo module's two fork suites run every IT of the module exactly once. */
class ForkSuitesTest {
  private static final List<Class<?>> SUITES =
      List.of(FleetProfilesItsSuite.class, OtherItsSuite.class);

  @Test
  void everyItOfTheModuleIsInExactlyOneSuite() {
    assertThat(ForkSuites.named(SUITES))
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(ForkSuites.sources("IT"));
  }

  @Test
  void failsafeRunsOnlySuitesCheckedHere() {
    // failsafe runs every **/*ItsSuite.java of the module (demo/pom.xml)
    assertThat(ForkSuites.sources("ItsSuite"))
        .containsExactlyInAnyOrderElementsOf(SUITES.stream().map(Class::getName).toList());
  }
}
