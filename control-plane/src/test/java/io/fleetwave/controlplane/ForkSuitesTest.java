package io.fleetwave.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.platform.suite.api.ExcludePackages;
import org.junit.platform.suite.api.SelectPackages;

/** The two fork suites split the control plane's ITs without a gap or an overlap. */
class ForkSuitesTest {
  @Test
  void theSecondHalfExcludesExactlyThePackagesOfTheFirst() {
    String[] first = OutageAndIdentityItsSuite.class.getAnnotation(SelectPackages.class).value();
    String[] excluded = ApiAndRolloutItsSuite.class.getAnnotation(ExcludePackages.class).value();
    String[] second = ApiAndRolloutItsSuite.class.getAnnotation(SelectPackages.class).value();

    assertThat(excluded).containsExactlyInAnyOrder(first);
    assertThat(second).containsExactly("io.fleetwave.controlplane");
    assertThat(first).allSatisfy(p -> assertThat(p).startsWith("io.fleetwave.controlplane."));
  }
}
