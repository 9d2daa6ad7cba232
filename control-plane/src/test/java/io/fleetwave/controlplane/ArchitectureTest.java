package io.fleetwave.controlplane;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.fleetwave.controlplane.driver.DriverArtifact;
import io.fleetwave.controlplane.projection.BatchChanges;
import io.fleetwave.controlplane.projection.DecodedRecord;
import io.fleetwave.controlplane.projection.HistoryPartitionPlan;
import io.fleetwave.controlplane.projection.NodeChange;
import io.fleetwave.controlplane.projection.NodePosition;
import io.fleetwave.controlplane.projection.ProjectionFold;
import io.fleetwave.controlplane.projection.ReconcileState;
import io.fleetwave.controlplane.projection.RecordDecoder;
import io.fleetwave.controlplane.projection.Rejection;
import io.fleetwave.controlplane.rollout.drain.Disruption;
import io.fleetwave.controlplane.rollout.drain.NodeOutage;
import io.fleetwave.controlplane.rollout.engine.DeciderInput;
import io.fleetwave.controlplane.rollout.engine.Decision;
import io.fleetwave.controlplane.rollout.engine.EffectReport;
import io.fleetwave.controlplane.rollout.engine.LoggedRecord;
import io.fleetwave.controlplane.rollout.engine.NodeRun;
import io.fleetwave.controlplane.rollout.engine.NodeState;
import io.fleetwave.controlplane.rollout.engine.Observation;
import io.fleetwave.controlplane.rollout.engine.OperatorOutcome;
import io.fleetwave.controlplane.rollout.engine.OperatorRequest;
import io.fleetwave.controlplane.rollout.engine.RolloutDecider;
import io.fleetwave.controlplane.rollout.engine.RolloutFold;
import io.fleetwave.controlplane.rollout.engine.RolloutRules;
import io.fleetwave.controlplane.rollout.engine.RolloutRun;
import io.fleetwave.controlplane.rollout.engine.RunIndex;
import io.fleetwave.controlplane.rollout.engine.RunStatus;
import io.fleetwave.controlplane.rollout.plan.FailureAction;
import io.fleetwave.controlplane.rollout.store.RolloutState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The control plane's pure core (docs/architecture.md "The pure core"): the rollout planner, the
 * rollout decider, the projection's fold, the MIG, driver and label-selector models. They decide
 * from values and return values, so they run in property tests without a broker, a database or
 * Quarkus; they import only java.*, events/ and one another. Adapters (REST, Kafka, PostgreSQL,
 * Kubernetes, CDI) depend on the core, never the reverse.
 */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.fleetwave.controlplane");

  /** Packages that are pure as a whole. */
  private static final String[] PURE_PACKAGES = {
    "io.fleetwave.controlplane.rollout.plan..",
    "io.fleetwave.controlplane.mig",
    "io.fleetwave.controlplane.driver",
    "io.fleetwave.controlplane.selector..",
  };

  /**
   * Pure classes in packages that also hold adapters: the decider beside the engine that feeds it
   * Kafka and PostgreSQL, the fold beside the consumer and writer, the disruption model beside the
   * drain port. Listed by class so the rule holds while those packages are split.
   */
  private static final Class<?>[] PURE_CLASSES_IN_MIXED_PACKAGES = {
    RolloutDecider.class,
    RolloutRules.class,
    RolloutRun.class,
    RunIndex.class,
    RolloutFold.class,
    LoggedRecord.class,
    NodeRun.class,
    NodeState.class,
    Decision.class,
    DeciderInput.class,
    EffectReport.class,
    OperatorOutcome.class,
    Observation.class,
    OperatorRequest.class,
    RunStatus.class,
    RolloutState.class,
    ProjectionFold.class,
    HistoryPartitionPlan.class,
    ReconcileState.class,
    BatchChanges.class,
    DecodedRecord.class,
    NodeChange.class,
    NodePosition.class,
    RecordDecoder.class,
    Rejection.class,
    Disruption.class,
    NodeOutage.class,
  };

  /**
   * Known exceptions, each to be moved to the edge: not a place for new code. YamlTreeReader is the
   * Jackson YAML parser under the MIG config parser; FailureAction, DriverArtifact and RolloutState
   * carry Jackson annotations for their JSON form in the API. (RolloutState, the decider's
   * vocabulary, also lives in the PostgreSQL store's package.)
   */
  private static final DescribedPredicate<JavaClass> KNOWN_EXCEPTIONS =
      belongToAnyOf(FailureAction.class, DriverArtifact.class, RolloutState.class)
          .or(named("io.fleetwave.controlplane.mig.YamlTreeReader"));

  /**
   * The plan as RolloutCreated (v2) carries it: a JSON document of the events contract (events/
   * builds on Jackson), which the decider passes through unread. To become typed records in
   * events/.
   */
  private static final String PLAN_DOCUMENT = "com.fasterxml.jackson.databind.JsonNode";

  private static final DescribedPredicate<JavaClass> PURE =
      resideInAnyPackage(PURE_PACKAGES)
          .or(belongToAnyOf(PURE_CLASSES_IN_MIXED_PACKAGES))
          // package-private, so by name
          .or(named("io.fleetwave.controlplane.rollout.engine.RestorePoints"))
          .as("the pure core");

  @Test
  void thePureCoreImportsOnlyJavaEventsAndItself() {
    classes()
        .that(PURE)
        .and(not(KNOWN_EXCEPTIONS))
        .should()
        .onlyDependOnClassesThat(
            elementsOf(
                    resideInAnyPackage("java..", "io.fleetwave.events..")
                        .or(PURE)
                        .or(named(PLAN_DOCUMENT)))
                .as("java.*, io.fleetwave.events or the pure core"))
        .because(
            "the planner, decider, fold and models decide from values"
                + " (docs/architecture.md \"The pure core\");"
                + " put framework code in an adapter that calls them")
        .check(MAIN);
  }

  /**
   * No cycles between packages, but for two known ones, to be removed where they are being
   * restructured: domain packages (spec, rollout, audit) and the read model use the REST layer's
   * Problem, ProblemException, Page and PageRequest; the projection rebuild also rebuilds the
   * rollout tables through the engine's RolloutLog and RolloutRebuild (it orchestrates both
   * projections: to move into a package of its own); and kubernetes.GateLabels reads the
   * projection's values while the projection's consumer calls GateLabels (the fold's values are to
   * get a package of their own).
   */
  @Test
  void packagesHaveNoCycles() {
    slices()
        .matching("io.fleetwave.controlplane.(**)")
        .should()
        .beFreeOfCycles()
        .ignoreDependency(
            resideOutsideOfPackage("io.fleetwave.controlplane.api"),
            named(
                "io.fleetwave.controlplane.api.Problem",
                "io.fleetwave.controlplane.api.ProblemException",
                "io.fleetwave.controlplane.api.Page",
                "io.fleetwave.controlplane.api.PageRequest"))
        .ignoreDependency(
            named("io.fleetwave.controlplane.projection.ProjectionRebuild"),
            resideInAPackage("io.fleetwave.controlplane.rollout.engine"))
        .ignoreDependency(
            named("io.fleetwave.controlplane.kubernetes.GateLabels"),
            resideInAPackage("io.fleetwave.controlplane.projection"))
        .check(MAIN);
  }

  /**
   * One read model: SQL that names a projection table (in FROM, JOIN, INTO, UPDATE or TABLE) lives
   * in readmodel/ or projection/ only. ArchUnit sees calls, not SQL text, and other packages query
   * their own tables through the same Pool, so this reads the sources. The one exception is
   * api.NodeFilter, which builds the WHERE clause the read model's NodeQueries runs; it moves when
   * the label-selector work on it lands.
   */
  @Test
  void onlyTheReadModelAndTheProjectionQueryTheProjectionsTables() throws IOException {
    Path root = Path.of("src/main/java/io/fleetwave/controlplane");
    Set<Path> allowed =
        Set.of(
            root.resolve("readmodel"),
            root.resolve("projection"),
            root.resolve("api/NodeFilter.java"));
    List<String> offenders;
    try (Stream<Path> files = Files.walk(root)) {
      offenders =
          files
              .filter(f -> f.toString().endsWith(".java"))
              .filter(f -> allowed.stream().noneMatch(f::startsWith))
              .filter(ArchitectureTest::queriesAProjectionTable)
              .map(f -> root.relativize(f).toString())
              .sorted()
              .toList();
    }
    assertThat(offenders)
        .as(
            "SQL over the projection's tables %s outside readmodel/ and projection/; move the"
                + " query into the read model",
            PROJECTION_TABLE_SQL.pattern())
        .isEmpty();
  }

  private static final Pattern PROJECTION_TABLE_SQL =
      Pattern.compile(
          "\\b(FROM|JOIN|INTO|UPDATE|TABLE)\\s+(\\w+\\.)?"
              + "(nodes|gpus|gpu_instances|node_events|node_reconcile|reconcile_steps)\\b");

  private static boolean queriesAProjectionTable(Path source) {
    try {
      return PROJECTION_TABLE_SQL.matcher(Files.readString(source)).find();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + source, e);
    }
  }

  /** These classes and their nested classes, by name (a class that moves stops matching). */
  private static DescribedPredicate<JavaClass> named(String... names) {
    return DescribedPredicate.describe(
        String.join(", ", names),
        c -> {
          String name = c.isArray() ? c.getBaseComponentType().getName() : c.getName();
          for (String n : names) {
            if (name.equals(n) || name.startsWith(n + "$")) {
              return true;
            }
          }
          return false;
        });
  }

  /** The predicate for a class, for an array of such classes, and for primitives. */
  private static DescribedPredicate<JavaClass> elementsOf(DescribedPredicate<JavaClass> allowed) {
    return DescribedPredicate.describe(
        allowed.getDescription(),
        c -> {
          JavaClass element = c.isArray() ? c.getBaseComponentType() : c;
          return element.isPrimitive() || allowed.test(element);
        });
  }
}
