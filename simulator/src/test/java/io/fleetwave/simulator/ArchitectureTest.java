package io.fleetwave.simulator;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * No cycles between the simulator's packages, its root package (the fleet and its nodes) included:
 * the fleet file's model ({@code simulator.fleet}) is read by the root, never the other way round.
 * No exceptions.
 */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.fleetwave.simulator");

  @Test
  void packagesHaveNoCycles() {
    slices().matching("io.fleetwave.(**)").should().beFreeOfCycles().check(MAIN);
  }
}
