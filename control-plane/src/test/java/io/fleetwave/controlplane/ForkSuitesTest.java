package io.fleetwave.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.testsupport.suites.ForkSuites;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.platform.suite.api.ExcludeClassNamePatterns;
import org.junit.platform.suite.api.ExcludePackages;
import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.SelectPackages;

/** The fork suites split the control plane's ITs without a gap or an overlap. */
class ForkSuitesTest {
  /** Every suite but the catch-all: each selects packages of its own. */
  private static final List<Class<?>> PARTS =
      List.of(OutageItsSuite.class, IdentityAndProcessItsSuite.class);

  @Test
  void theCatchAllExcludesExactlyThePackagesOfTheOthersAndNoneIsInTwo() {
    List<String> parts =
        PARTS.stream()
            .flatMap(suite -> Arrays.stream(suite.getAnnotation(SelectPackages.class).value()))
            .toList();
    String[] excluded = ApiAndRolloutItsSuite.class.getAnnotation(ExcludePackages.class).value();
    String[] catchAll = ApiAndRolloutItsSuite.class.getAnnotation(SelectPackages.class).value();

    assertThat(parts).doesNotHaveDuplicates();
    assertThat(excluded).containsExactlyInAnyOrderElementsOf(parts);
    assertThat(catchAll).containsExactly("io.fleetwave.controlplane");
    assertThat(parts).allSatisfy(p -> assertThat(p).startsWith("io.fleetwave.controlplane."));
  }

  @Test
  void theClassesTheOtherForksNameAreTheOnesTheCatchAllExcludes() {
    List<String> named = PARTS.stream().flatMap(ForkSuitesTest::named).toList();
    List<String> excluded =
        Arrays.stream(
                ApiAndRolloutItsSuite.class.getAnnotation(ExcludeClassNamePatterns.class).value())
            .map(pattern -> pattern.replace("\\.", "."))
            .toList();

    assertThat(named).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(excluded);
  }

  @Test
  void theOutageForkStartsNoQuarkusAndTheIdentityForkOnlyProfilesOfTheirOwn() {
    for (Class<?> suite : PARTS) {
      for (Class<?> it : named(suite).map(ForkSuitesTest::load).toList()) {
        assertThat(it.getSimpleName()).endsWith("IT");
        assertThat(it.getPackageName())
            .startsWith("io.fleetwave.controlplane.")
            .isNotIn(List.of(suite.getAnnotation(SelectPackages.class).value()));
        boolean quarkus = it.isAnnotationPresent(QuarkusTest.class);
        if (suite == OutageItsSuite.class) {
          assertThat(quarkus)
              .as(it.getName() + " would start Quarkus in the outage fork")
              .isFalse();
        } else {
          // Quarkus' default profile starts in the catch-all's fork; a second start here costs.
          assertThat(quarkus && it.isAnnotationPresent(TestProfile.class))
              .as(it.getName() + " must be a QuarkusTest with a test profile of its own")
              .isTrue();
        }
      }
    }
  }

  @Test
  void everySuiteFailsafeRunsIsCheckedHere() {
    // failsafe runs every **/*ItsSuite.java of the module (control-plane/pom.xml)
    assertThat(ForkSuites.sources("ItsSuite"))
        .containsExactlyInAnyOrderElementsOf(
            Stream.concat(PARTS.stream(), Stream.of(ApiAndRolloutItsSuite.class))
                .map(Class::getName)
                .toList());
  }

  private static Stream<String> named(Class<?> suite) {
    SelectClasses classes = suite.getAnnotation(SelectClasses.class);
    return classes == null ? Stream.empty() : Arrays.stream(classes.names());
  }

  private static Class<?> load(String name) {
    try {
      return Class.forName(name);
    } catch (ClassNotFoundException e) {
      throw new AssertionError("a suite names a class that does not exist: " + name, e);
    }
  }
}
