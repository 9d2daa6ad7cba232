package io.fleetwave.controlplane.rollout.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.api.CoreJson;
import io.fleetwave.controlplane.fixtures.MigratedDatabase;
import io.fleetwave.controlplane.fixtures.MigratedPool;
import io.fleetwave.core.rollout.plan.LargeFleetPlans;
import io.fleetwave.core.rollout.plan.NodePlan;
import io.fleetwave.core.rollout.plan.PlannedWave;
import io.fleetwave.core.rollout.plan.RolloutPlan;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.testsupport.services.PostgresExtension;
import io.vertx.mutiny.sqlclient.Pool;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A large rollout's plan as the API shows it: cut once when the rollout is created, stored, and the
 * same in the 201 and in the full view; for rollouts stored before, cut by the migration (V26)
 * exactly as the full view cut them in PostgreSQL on each first read. Real planner, real
 * PostgreSQL; each test has a database of its own on the class's server.
 */
@ExtendWith(PostgresExtension.class)
class ShownPlanIT {
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = CoreJson.mapper();
  // 600 planned nodes in batches of one (canary wave of 1, then 599 batches), 60 left out: both
  // lists above what a cut plan lists.
  private static RolloutPlan large;
  private static RolloutPlan small;

  EmbeddedPostgres postgres;

  @BeforeAll
  static void plan() {
    large = LargeFleetPlans.plan("large", 600, 2, 60);
    small = LargeFleetPlans.plan("small", 12, 2, 3);
  }

  @Test
  void theMigrationCutsTheRolloutsStoredBeforeItAsTheControlPlaneCutsNewOnes() throws Exception {
    String url = MigratedDatabase.create(postgres, "migrated");
    MigratedDatabase.migrate(url, "25");
    UUID largeId = insertAsBefore(url, large);
    UUID smallId = insertAsBefore(url, small);

    MigratedDatabase.migrate(url, "latest");

    JsonNode cut = asStored(ShownPlan.cut(large, JSON).orElseThrow());
    assertThat(shownPlan(url, largeId)).as("the migration's cut").isEqualTo(cut);
    assertThat(shownPlan(url, smallId)).as("a plan shown as planned").isNull();
    assertThat(ShownPlan.cut(small, JSON)).isEmpty();
    // What the cut holds, so that the equality above is about a real cut.
    assertThat(cut.get("truncated").asBoolean()).isTrue();
    assertThat(cut.get("plannedNodes").asInt()).isEqualTo(600);
    assertThat(cut.get("excludedCount").asInt()).isEqualTo(60);
    assertThat(cut.get("excluded")).hasSize(ShownPlan.LISTED);
    JsonNode rest = cut.get("waves").get(1);
    assertThat(rest.get("nodeCount").asInt()).isEqualTo(599);
    assertThat(rest.get("batchCount").asInt()).isEqualTo(599);
    assertThat(rest.get("batches")).hasSize(ShownPlan.LISTED);
    assertThat(rest.get("batches").get(0).has("nodes")).isFalse();
    assertThat(rest.get("batches").get(0).get("nodeCount").asInt()).isEqualTo(1);
    assertThat(JSON.writeValueAsBytes(cut).length).as("bytes of the cut").isLessThan(32 * 1024);
  }

  @Test
  void aCreatedRolloutAnswersWithThePlanAsTheFullViewShowsIt() throws Exception {
    String url = MigratedDatabase.create(postgres, "created");
    MigratedDatabase.migrate(url, "latest");
    try (MigratedPool database = MigratedPool.onDatabase(url)) {
      Pool pool = database.pool();
      RolloutStore store = new RolloutStore(pool, JSON);
      RolloutFullView fullView = new RolloutFullView(pool, JSON);

      StoredRollout created =
          store.create(LargeFleetPlans.spec("large"), large, "test-operator").await().atMost(BOUND);
      StoredRollout createdSmall =
          store.create(LargeFleetPlans.spec("small"), small, "test-operator").await().atMost(BOUND);

      assertThat(created.plan()).isEqualTo(ShownPlan.cut(large, JSON).orElseThrow());
      assertThat(fullView.view(created.id()).await().atMost(BOUND).orElseThrow().plan())
          .as("the full view's plan")
          .isEqualTo(asStored(created.plan()));
      assertThat(createdSmall.plan()).isEqualTo(JSON.valueToTree(small));
      assertThat(createdSmall.plan().get("waves").get(1).get("batches").get(0).has("nodes"))
          .isTrue();
      assertThat(fullView.view(createdSmall.id()).await().atMost(BOUND).orElseThrow().plan())
          .isEqualTo(asStored(createdSmall.plan()));
      assertThat(storedPlan(url, created.id()))
          .as("the plan the engine follows, stored whole")
          .isEqualTo(asStored(JSON.valueToTree(large)));
    }
  }

  /**
   * A tree as it reads back from its JSON text, as PostgreSQL's jsonb gives it: a long field of a
   * plan (a forecast's seconds) is a LongNode in a tree made from the object, an IntNode once read
   * back, and Jackson's JsonNode equality tells the two apart although the JSON is the same.
   */
  private static JsonNode asStored(JsonNode tree) throws Exception {
    return JSON.readTree(JSON.writeValueAsString(tree));
  }

  /** A rollout as the API stored it before V26: its request, its whole plan, its planned nodes. */
  private static UUID insertAsBefore(String url, RolloutPlan plan) throws Exception {
    UUID id = UUID.randomUUID();
    try (Connection db = MigratedDatabase.connect(url)) {
      try (PreparedStatement insert =
          db.prepareStatement(
              "INSERT INTO rollouts (id, name, spec, plan, state, created_by) VALUES"
                  + " (?, ?, ?::jsonb, ?::jsonb, 'created', 'test-operator')")) {
        insert.setObject(1, id);
        insert.setString(2, plan.name());
        insert.setString(3, JSON.writeValueAsString(LargeFleetPlans.spec(plan.name())));
        insert.setString(4, JSON.writeValueAsString(plan));
        insert.executeUpdate();
      }
      try (PreparedStatement node =
          db.prepareStatement("INSERT INTO rollout_nodes (rollout, node, wave) VALUES (?, ?, ?)")) {
        for (PlannedWave wave : plan.waves()) {
          for (NodePlan planned : wave.nodes()) {
            node.setObject(1, id);
            node.setString(2, planned.node());
            node.setInt(3, wave.number());
            node.addBatch();
          }
        }
        node.executeBatch();
      }
    }
    return id;
  }

  private static JsonNode shownPlan(String url, UUID id) throws Exception {
    return column(url, id, "shown_plan");
  }

  private static JsonNode storedPlan(String url, UUID id) throws Exception {
    return column(url, id, "plan");
  }

  private static JsonNode column(String url, UUID id, String column) throws Exception {
    try (Connection db = MigratedDatabase.connect(url);
        PreparedStatement read =
            db.prepareStatement("SELECT " + column + "::text FROM rollouts WHERE id = ?")) {
      read.setObject(1, id);
      try (ResultSet row = read.executeQuery()) {
        assertThat(row.next()).isTrue();
        String text = row.getString(1);
        return text == null ? null : JSON.readTree(text);
      }
    }
  }
}
