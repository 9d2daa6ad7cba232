package io.fleetwave.testsupport;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** No cycles between test-support's packages (events, logging, network, services, suites). */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.fleetwave.testsupport");

  @Test
  void packagesHaveNoCycles() {
    slices().matching("io.fleetwave.(**)").should().beFreeOfCycles().check(MAIN);
  }
}
