package io.fleetwave.testfixtures.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/** What a module's architecture rules check: its main classes, the tests left out. */
public final class MainClasses {
  private MainClasses() {}

  /** The main classes under {@code rootPackage}, as the module's build compiled them. */
  public static JavaClasses under(String rootPackage) {
    return new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(rootPackage);
  }
}
