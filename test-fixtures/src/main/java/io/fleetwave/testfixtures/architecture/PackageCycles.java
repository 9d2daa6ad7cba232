package io.fleetwave.testfixtures.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The cycle rule every module with more than one package keeps: no cycles between the packages of
 * its main classes, its root package included (each package under io.fleetwave is a slice, so
 * {@code simulator} is one as {@code simulator.fleet} is). No exceptions.
 */
public final class PackageCycles {
  private PackageCycles() {}

  /** Fails naming the cycle if the main classes under {@code rootPackage} have one. */
  public static void assertNone(String rootPackage) {
    slices()
        .matching("io.fleetwave.(**)")
        .should()
        .beFreeOfCycles()
        .check(MainClasses.under(rootPackage));
  }
}
