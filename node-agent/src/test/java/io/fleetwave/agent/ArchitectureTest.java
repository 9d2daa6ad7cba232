package io.fleetwave.agent;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static io.fleetwave.testfixtures.architecture.PureImports.elementsOf;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.fleetwave.testfixtures.architecture.MainClasses;
import io.fleetwave.testfixtures.architecture.PackageCycles;
import org.junit.jupiter.api.Test;

/**
 * The agent's pure core (docs/architecture.md "The pure core"): the reconciler that turns a desired
 * spec and an observed node into steps in hardware order, and the GPU port it observes and acts
 * through. They import only java.*, events/ and one another, so property tests run them over
 * thousands of random nodes without NVML, sysfs, D-Bus, Kafka or Kubernetes; those adapters (nvml,
 * sriov, hostclients, kafka, kubernetes...) implement or call the core, never the reverse.
 */
class ArchitectureTest {
  private static final JavaClasses MAIN = MainClasses.under("io.fleetwave.agent");

  private static final String[] PURE = {
    "io.fleetwave.agent.reconcile..", "io.fleetwave.agent.gpu.."
  };

  @Test
  void theReconcilerAndTheGpuPortImportOnlyJavaEventsAndEachOther() {
    classes()
        .that()
        .resideInAnyPackage(PURE)
        .should()
        .onlyDependOnClassesThat(
            elementsOf(
                resideInAnyPackage("java..", "io.fleetwave.events..")
                    .or(resideInAnyPackage(PURE))
                    .as("java.*, io.fleetwave.events or the reconciler and GPU port")))
        .because(
            "the reconciler plans from values (docs/architecture.md \"The pure core\");"
                + " put the effect in an adapter behind GpuBackend")
        .check(MAIN);
  }

  /**
   * No cycles between packages, the agent's root package (AgentMain, NodeAgent) included: the
   * slices are every package under io.fleetwave, so {@code agent} is one as {@code agent.desired}
   * is. No exceptions.
   */
  @Test
  void packagesHaveNoCycles() {
    PackageCycles.assertNone("io.fleetwave.agent");
  }
}
