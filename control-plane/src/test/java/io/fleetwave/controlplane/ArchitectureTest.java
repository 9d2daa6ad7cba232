package io.fleetwave.controlplane;

import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.fleetwave.controlplane.database.Connections;
import io.fleetwave.testfixtures.architecture.MainClasses;
import io.vertx.mutiny.sqlclient.Pool;
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
 * The control plane's packages. The pure core they call (planner, decider, fold, models) is the
 * rollout-core module, whose own ArchitectureTest keeps it pure.
 */
class ArchitectureTest {
  private static final JavaClasses MAIN = MainClasses.under("io.fleetwave.controlplane");

  /**
   * No cycles between packages, with no exception: every package of the control plane is a slice,
   * the pure core's (rollout-core, a module below it) apart.
   */
  @Test
  void packagesHaveNoCycles() {
    slices().matching("io.fleetwave.(**)").should().beFreeOfCycles().check(MAIN);
  }

  /**
   * Connections are checked out through database.Connections, which gives each an exception
   * handler: the Vert.x SQL client prints the end of a checked-out connection without one to
   * stderr, a bare line among the console's JSON lines (seen in the system tier at PostgreSQL's
   * stop).
   */
  @Test
  void connectionsAreCheckedOutWithAnExceptionHandler() {
    noClasses()
        .that()
        .doNotHaveFullyQualifiedName(Connections.class.getName())
        .should()
        .callMethodWhere(
            target(owner(assignableTo(Pool.class)))
                .and(target(nameMatching("with(Transaction|Connection)|getConnection"))))
        .because("database.Connections gives each checked-out connection an exception handler")
        .check(MAIN);
  }

  /**
   * One read model: SQL that names a projection table (in FROM, JOIN, INTO, UPDATE or TABLE) lives
   * in readmodel/ or projection/ only. ArchUnit sees calls, not SQL text, and other packages query
   * their own tables through the same Pool, so this reads the sources. No exception: the node
   * filter's WHERE clause is the read model's (readmodel.NodeFilter).
   */
  @Test
  void onlyTheReadModelAndTheProjectionQueryTheProjectionsTables() throws IOException {
    Path root = Path.of("src/main/java/io/fleetwave/controlplane");
    Set<Path> allowed = Set.of(root.resolve("readmodel"), root.resolve("projection"));
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
              + "(nodes|gpus|gpu_instances|node_events|node_reconcile|reconcile_steps|node_provenance"
              + "|node_changes|registration_history|inventory_history)\\b");

  private static boolean queriesAProjectionTable(Path source) {
    try {
      return PROJECTION_TABLE_SQL.matcher(Files.readString(source)).find();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + source, e);
    }
  }
}
