package io.fleetwave.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.fixtures.MigratedPool;
import io.fleetwave.controlplane.readmodel.FleetSnapshotReader;
import io.fleetwave.controlplane.readmodel.NodeFilter;
import io.fleetwave.core.rollout.plan.FleetNode;
import io.fleetwave.core.selector.LabelSelector;
import io.fleetwave.core.selector.Requirement;
import io.fleetwave.testsupport.services.TestServices;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * A label selector means the same in PostgreSQL (the API's node filter, {@link NodeFilter#toSql()}
 * over the real migrated {@code nodes} table) as in memory ({@link LabelSelector#matches} over the
 * nodes as rollout planning reads them, through {@link FleetSnapshotReader}): for random labelled
 * nodes and random selectors, the SQL selects exactly the nodes the matcher selects. Keys and
 * values come from a small alphabet so that every operator both matches and misses, and nodes lack
 * keys as often as they carry them.
 *
 * <p>jqwik runs its own lifecycle, not JUnit Jupiter's extensions, so the one server for all tries
 * is started here through test-support's {@link TestServices#startPostgres()}, the same start the
 * {@code PostgresExtension} uses.
 */
class LabelSelectorSqlAgreementIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final List<String> KEYS = List.of("a", "b", "zone", "example.com/tier");
  private static final List<String> LABEL_VALUES = List.of("", "x", "y", "v.1");

  /**
   * Values in a set must be non-empty; after {@code =} and {@code !=} the empty value is allowed.
   */
  private static final List<String> SET_VALUES = List.of("x", "y", "v.1");

  private static MigratedPool database;
  private static Pool pool;
  private static FleetSnapshotReader planningReader;

  @BeforeContainer
  static void startPostgresWithTheProjectionSchema() {
    database = MigratedPool.ofOwnPostgres();
    pool = database.pool();
    planningReader = new FleetSnapshotReader(pool, new ObjectMapper());
  }

  @AfterContainer
  static void stop() {
    if (database != null) {
      database.close();
    }
  }

  @Property(tries = 200)
  void sqlSelectsExactlyTheNodesTheMatcherSelects(
      @ForAll("fleets") List<Map<String, String>> fleet,
      @ForAll("selectors") List<Requirement> requirements) {
    String text = render(requirements);
    LabelSelector selector = LabelSelector.parse(text);
    assertThat(selector.requirements()).as("parse of '%s'", text).isEqualTo(requirements);

    replaceNodes(fleet);
    List<FleetNode> planned = planningReader.snapshot().await().atMost(BOUND).nodes();
    assertThat(planned)
        .as("labels as rollout planning reads them back")
        .extracting(FleetNode::labels)
        .containsExactlyInAnyOrderElementsOf(fleet);
    Set<String> inMemory =
        planned.stream()
            .filter(node -> selector.matches(node.labels()))
            .map(FleetNode::name)
            .collect(Collectors.toCollection(TreeSet::new));

    assertThat(selectByPostgres(selector))
        .as("nodes selected by '%s' over %s", text, fleet)
        .isEqualTo(inMemory);
  }

  private static void replaceNodes(List<Map<String, String>> fleet) {
    pool.query("DELETE FROM nodes").execute().await().atMost(BOUND);
    List<Tuple> rows =
        IntStream.range(0, fleet.size())
            .mapToObj(
                i -> Tuple.of(name(i), new JsonObject(Map.<String, Object>copyOf(fleet.get(i)))))
            .toList();
    pool.preparedQuery(
            "INSERT INTO nodes (name, host_kind, labels, last_epoch, last_seq)"
                + " VALUES ($1, 'ubuntu', $2, 0, 0)")
        .executeBatch(rows)
        .await()
        .atMost(BOUND);
  }

  private static Set<String> selectByPostgres(LabelSelector selector) {
    NodeFilter.Condition condition = new NodeFilter(null, null, selector).toSql();
    Set<String> names = new TreeSet<>();
    for (Row row :
        pool.preparedQuery("SELECT n.name FROM nodes n WHERE " + condition.sql())
            .execute(Tuple.from(condition.params()))
            .await()
            .atMost(BOUND)) {
      names.add(row.getString("name"));
    }
    return names;
  }

  private static String name(int index) {
    return "node-" + index;
  }

  @Provide
  Arbitrary<List<Map<String, String>>> fleets() {
    Arbitrary<Map<String, String>> labels =
        Arbitraries.maps(Arbitraries.of(KEYS), Arbitraries.of(LABEL_VALUES)).ofMaxSize(KEYS.size());
    return labels.list().ofMinSize(1).ofMaxSize(30);
  }

  @Provide
  Arbitrary<List<Requirement>> selectors() {
    return requirement().list().ofMaxSize(4);
  }

  private static Arbitrary<Requirement> requirement() {
    Arbitrary<String> key = Arbitraries.of(KEYS);
    Arbitrary<String> value = Arbitraries.of(LABEL_VALUES);
    Arbitrary<List<String>> set = Arbitraries.of(SET_VALUES).list().ofMinSize(1).ofMaxSize(3);
    return Arbitraries.oneOf(
        Combinators.combine(key, value).as(Requirement.Equals::new),
        Combinators.combine(key, value).as(Requirement.NotEquals::new),
        Combinators.combine(key, set).as(Requirement.In::new),
        Combinators.combine(key, set).as(Requirement.NotIn::new),
        key.map(Requirement.Exists::new),
        key.map(Requirement.NotExists::new));
  }

  /**
   * The selector's text, with the spellings the grammar allows ({@code =} and {@code ==}, spaces
   * around operators) so the parser is part of what agrees.
   */
  private static String render(List<Requirement> requirements) {
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < requirements.size(); i++) {
      String space = i % 2 == 0 ? "" : " ";
      parts.add(
          switch (requirements.get(i)) {
            case Requirement.Equals eq ->
                eq.key() + space + (i % 3 == 0 ? "==" : "=") + space + eq.value();
            case Requirement.NotEquals ne -> ne.key() + space + "!=" + space + ne.value();
            case Requirement.In in -> in.key() + " in (" + String.join(",", in.values()) + ")";
            case Requirement.NotIn notIn ->
                notIn.key() + " notin (" + String.join(", ", notIn.values()) + ")";
            case Requirement.Exists exists -> exists.key();
            case Requirement.NotExists absent -> "!" + space + absent.key();
          });
    }
    return String.join(",", parts);
  }
}
