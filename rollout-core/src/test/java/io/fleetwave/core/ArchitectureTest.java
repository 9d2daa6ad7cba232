package io.fleetwave.core;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static io.fleetwave.testfixtures.architecture.PureImports.elementsOf;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.fleetwave.testfixtures.architecture.MainClasses;
import io.fleetwave.testfixtures.architecture.PackageCycles;
import org.junit.jupiter.api.Test;

/**
 * The pure core (docs/architecture.md "The pure core"): the rollout planner, the decider and its
 * loop, the projection's fold, the MIG, driver and label-selector models. They decide from values
 * and return values, so they run in property tests without a broker, a database or Quarkus. The
 * module's POM depends on events/ alone; this keeps the code to java.* and events/ too (events/
 * builds on Jackson, which would otherwise reach the core through it).
 */
class ArchitectureTest {
  private static final JavaClasses MAIN = MainClasses.under("io.fleetwave.core");

  @Test
  void theCoreImportsOnlyJavaEventsAndItself() {
    classes()
        .should()
        .onlyDependOnClassesThat(
            elementsOf(
                resideInAnyPackage("java..", "io.fleetwave.events..", "io.fleetwave.core..")
                    .as("java.*, io.fleetwave.events or the core itself")))
        .because(
            "the planner, decider, fold and models decide from values"
                + " (docs/architecture.md \"The pure core\");"
                + " put framework code in an adapter that calls them")
        .check(MAIN);
  }

  @Test
  void packagesHaveNoCycles() {
    PackageCycles.assertNone("io.fleetwave.core");
  }
}
