package io.fleetwave.events;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * events/ is the contract every module and every agent version shares: plain records and their
 * codec, no framework. Jackson (the JSON and YAML of the wire and the catalogue), the CloudEvents
 * SDK (the envelope) and Bouncy Castle's Ed25519 (the signatures, in security/ only) are the only
 * libraries; Quarkus, CDI, Vert.x, Kafka or fabric8 here would force them on the agent and on every
 * consumer of the contract.
 */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.fleetwave.events");

  @Test
  void theContractUsesNoFramework() {
    classes()
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            // The JDK's HMAC and HKDF (the node-event MAC): the JDK, not a framework.
            "javax.crypto..",
            "io.fleetwave.events..",
            "com.fasterxml.jackson..",
            "io.cloudevents..",
            "org.bouncycastle.crypto..",
            "org.bouncycastle.asn1..")
        .because(
            "events/ holds plain records and their codec (docs/architecture.md \"The pure core\")")
        .check(MAIN);
  }

  @Test
  void onlyTheSignaturesUseBouncyCastle() {
    noClasses()
        .that()
        .resideOutsideOfPackage("io.fleetwave.events.security")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.bouncycastle..")
        .because("Ed25519Signatures is the one home of the signature arithmetic")
        .check(MAIN);
  }

  /**
   * No cycles between packages, the root package (the envelopes and the type registry) included:
   * the slices are every package under io.fleetwave, so {@code events} is one as {@code
   * events.codec} is. No exceptions.
   */
  @Test
  void packagesHaveNoCycles() {
    slices().matching("io.fleetwave.(**)").should().beFreeOfCycles().check(MAIN);
  }
}
