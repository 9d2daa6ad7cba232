package io.fleetwave.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.testsupport.suites.ForkSuites;
import io.quarkus.test.junit.QuarkusTest;
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
      List.of(NoQuarkusItsSuite.class, IdentityAndProcessItsSuite.class);

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
  void theClassesTheOutageForkNamesAreTheOnesTheOthersExcludeAndStartNoQuarkus()
      throws ClassNotFoundException {
    List<String> named =
        Arrays.asList(NoQuarkusItsSuite.class.getAnnotation(SelectClasses.class).names());
    List<String> excluded =
        Stream.of(ApiAndRolloutItsSuite.class, IdentityAndProcessItsSuite.class)
            .flatMap(
                suite -> Arrays.stream(suite.getAnnotation(ExcludeClassNamePatterns.class).value()))
            .map(pattern -> pattern.replace("\\.", "."))
            .toList();

    assertThat(named).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(excluded);
    for (String name : named) {
      Class<?> it = Class.forName(name);
      assertThat(it.getSimpleName()).endsWith("IT");
      assertThat(it.getPackageName())
          .startsWith("io.fleetwave.controlplane.")
          .isNotIn(List.of(NoQuarkusItsSuite.class.getAnnotation(SelectPackages.class).value()));
      assertThat(it.isAnnotationPresent(QuarkusTest.class))
          .as(name + " would start Quarkus in the outage fork")
          .isFalse();
    }
  }

  @Test
  void noItOfTheOutageForksPackagesStartsQuarkus() throws ClassNotFoundException {
    List<String> packages =
        Arrays.asList(NoQuarkusItsSuite.class.getAnnotation(SelectPackages.class).value());
    List<String> its =
        ForkSuites.sources("IT").stream()
            .filter(name -> packages.stream().anyMatch(p -> name.startsWith(p + ".")))
            .toList();
    assertThat(its).isNotEmpty();
    for (String name : its) {
      assertThat(Class.forName(name).isAnnotationPresent(QuarkusTest.class))
          .as(name + " would start Quarkus in the outage fork")
          .isFalse();
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
}
