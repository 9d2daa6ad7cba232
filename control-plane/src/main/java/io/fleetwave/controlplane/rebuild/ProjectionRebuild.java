package io.fleetwave.controlplane.rebuild;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.config.ProjectionConfig;
import io.fleetwave.controlplane.kafka.KafkaClientConfig;
import io.fleetwave.controlplane.kafka.TopicToEnd;
import io.fleetwave.controlplane.projection.ControlFactRebuild;
import io.fleetwave.controlplane.projection.ControlFacts;
import io.fleetwave.controlplane.projection.NodeEventAuthenticity;
import io.fleetwave.controlplane.projection.NodeSnapshots;
import io.fleetwave.controlplane.projection.ProjectionComparison;
import io.fleetwave.controlplane.projection.ProjectionTables;
import io.fleetwave.controlplane.projection.ProjectionWriter;
import io.fleetwave.controlplane.projection.RebuildTimeoutException;
import io.fleetwave.controlplane.projection.RefusalIsolation;
import io.fleetwave.controlplane.rollout.engine.RolloutLog;
import io.fleetwave.controlplane.rollout.engine.RolloutRebuild;
import io.fleetwave.controlplane.time.Deadline;
import io.fleetwave.core.projection.DecodedRecord;
import io.fleetwave.core.projection.HistoryPartitionPlan;
import io.fleetwave.core.rollout.decide.LoggedRecord;
import io.fleetwave.events.Topics;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Rebuilds the projection into a scratch schema from the node snapshots ({@link NodeSnapshots}) and
 * every retained record of fleet.node-events (offset 0 until Kafka's retention deletes records),
 * with the live apply code, waits until the live consumer has committed at least as far, and
 * compares the two row by row; then the same for the rollout tables from fleet.rollout-events
 * ({@link RolloutRebuild}). First of all it replays fleet.control-facts from offset 0 ({@link
 * ControlFactRebuild}): into the live tables, restoring the facts a lost database lacks, and into
 * the scratch schema, compared like the others. The events of nodes the live tables lack (a
 * database lost under a running control plane) are applied to the live tables too: a node whose
 * events arrived between the loss and the rebuild is in the live tables already and is left to the
 * live consumer, and shows up as different until it is rebuilt by a reset of the consumer group.
 * Blocking: call it from a worker thread. One rebuild at a time.
 *
 * <p>The comparison is meaningful on a quiet topic: events that arrive after the replay's end
 * offsets are in the live projection only and show up as differences. The node history is compared
 * over the retention only ({@code fleetwave.projection.history.retention}): the live projection has
 * dropped what is older.
 */
@ApplicationScoped
public class ProjectionRebuild {
  public static final ProjectionTables SCRATCH = new ProjectionTables("projection_rebuild");
  private static final String SNAPSHOT_POSITIONS = SCRATCH.schema() + ".snapshot_positions";
  private static final Logger LOG = Logger.getLogger(ProjectionRebuild.class);

  private final ProjectionWriter writer;
  private final Pool pool;
  private final Map<String, Object> kafkaConfig;
  private final String liveGroup;
  private final ObjectMapper json;
  private final NodeEventAuthenticity authenticity;
  private final ControlFacts controlFacts;
  private final Duration historyRetention;
  private final AtomicBoolean running = new AtomicBoolean();

  public ProjectionRebuild(
      ProjectionWriter writer,
      Pool pool,
      @Identifier("default-kafka-broker") Map<String, Object> kafkaConfig,
      @ConfigProperty(name = "mp.messaging.incoming.node-events.group.id") String liveGroup,
      ObjectMapper json,
      ProjectionConfig config,
      NodeEventAuthenticity authenticity,
      ControlFacts controlFacts) {
    this.controlFacts = controlFacts;
    this.json = json;
    this.authenticity = authenticity;
    this.historyRetention = config.history().retention();
    this.writer = writer;
    this.pool = pool;
    this.kafkaConfig = kafkaConfig;
    this.liveGroup = liveGroup;
  }

  /**
   * @throws RebuildTimeoutException when it takes longer than {@code timeout}
   * @throws IllegalStateException when another rebuild is running
   */
  public RebuildReport rebuild(Duration timeout) {
    if (!running.compareAndSet(false, true)) {
      throw new IllegalStateException("a projection rebuild is already running");
    }
    try {
      return run(
          new Deadline<>(
              timeout,
              stage ->
                  new RebuildTimeoutException(
                      "projection rebuild did not finish within "
                          + timeout.toSeconds()
                          + " s ("
                          + stage
                          + ")")));
    } finally {
      running.set(false);
    }
  }

  private RebuildReport run(Deadline<RebuildTimeoutException> deadline) {
    long started = System.nanoTime();
    ProjectionComparison.recreate(pool, SCRATCH).await().atMost(deadline.remaining("preparing"));
    // The facts first: a lost database gets its enrolled keys back before the node events, whose
    // signatures are checked against them, are replayed.
    ControlFactRebuild facts = new ControlFactRebuild(pool, controlFacts, SCRATCH.schema());
    long factCount = facts.replay(kafkaConfig, deadline.remaining("replaying control facts"));
    long snapshots = loadSnapshots(deadline);
    long[] counts = new long[2];
    // Nodes the live tables lack (a database lost under a running control plane): their events go
    // into the live tables too, so the rebuild restores them; the others are the live consumer's.
    Set<String> liveNodes = liveNodes(deadline);
    Map<TopicPartition, Long> ends = replay(deadline, counts, liveNodes);
    awaitLiveConsumer(ends, deadline);
    Instant historyFrom = HistoryPartitionPlan.keptFrom(Instant.now(), historyRetention);
    List<String> differences =
        new ArrayList<>(
            ProjectionComparison.differences(
                pool,
                ProjectionTables.LIVE,
                SCRATCH,
                new ProjectionComparison.HistoryWindow(historyFrom, SNAPSHOT_POSITIONS),
                deadline.remaining("comparing")));
    Map<String, Long> rows =
        new LinkedHashMap<>(
            ProjectionComparison.rowCounts(pool, SCRATCH, deadline.remaining("counting")));
    // The rollout tables: folded from fleet.rollout-events with the engine's own code.
    RolloutRebuild rollouts = new RolloutRebuild(pool, json, deadline.remaining("rollouts"));
    rollouts.recreate(SCRATCH.schema());
    try (RolloutLog log = new RolloutLog(kafkaConfig, deadline.remaining("reading rollouts"))) {
      Map<UUID, List<LoggedRecord>> logged = log.readAll();
      // Rollouts the live tables lack (a database lost under a running control plane) are
      // written to them too, as the nodes are above: their operators' requests, restored with
      // the facts, find them, and the engine takes them over from the log.
      rollouts.rebuild(
          rollouts.lackedBy(ProjectionTables.LIVE.schema(), logged),
          ProjectionTables.LIVE.schema());
      rollouts.rebuild(logged, SCRATCH.schema());
    }
    differences.addAll(
        rollouts.differences(
            ProjectionTables.LIVE.schema(),
            SCRATCH.schema(),
            ProjectionComparison.MAX_DIFFERENCES));
    rows.putAll(rollouts.rowCounts(SCRATCH.schema()));
    differences.addAll(facts.differences(deadline.remaining("comparing control facts")));
    rows.putAll(facts.rowCounts(deadline.remaining("counting control facts")));
    long millis = (System.nanoTime() - started) / 1_000_000;
    LOG.infof(
        "projection rebuilt from %d control facts, %d node snapshots and the retained node events:"
            + " %d records (%d refused), %s, equal=%s (history compared from %s) in %d ms",
        factCount,
        snapshots,
        counts[0],
        counts[1],
        rows,
        differences.isEmpty(),
        historyFrom,
        millis);
    return new RebuildReport(
        differences.isEmpty(),
        snapshots,
        historyFrom,
        counts[0],
        counts[1],
        rows,
        differences,
        millis);
  }

  /**
   * Once Kafka's retention has deleted records of fleet.node-events, loads the newest snapshot of
   * every node from fleet.node-snapshots into the scratch tables, and the position each covers. The
   * replay that follows skips every event at or before it, as it skips any event replayed twice, so
   * the retained tail of fleet.node-events completes the state. While the log is whole, it loads
   * none: a rebuild from offset 0 alone checks more (the snapshots came from the live projection).
   */
  private long loadSnapshots(Deadline<RebuildTimeoutException> deadline) {
    Map<String, String> newest = new LinkedHashMap<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            KafkaClientConfig.assigningConsumer(kafkaConfig, 5000),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      if (!retentionDeletedNodeEvents(consumer, deadline)) {
        return load(newest, deadline);
      }
      TopicToEnd.read(
          consumer,
          Topics.NODE_SNAPSHOTS,
          deadline.remaining("reading node snapshots"),
          records -> {
            for (ConsumerRecord<String, byte[]> record : records) {
              if (record.value() == null) {
                newest.remove(record.key());
              } else {
                newest.put(record.key(), new String(record.value(), StandardCharsets.UTF_8));
              }
            }
          });
    } catch (TopicToEnd.TopicReadTimeoutException e) {
      throw timedOut(deadline, e);
    }
    return load(newest, deadline);
  }

  private static boolean retentionDeletedNodeEvents(
      KafkaConsumer<String, byte[]> consumer, Deadline<RebuildTimeoutException> deadline) {
    List<TopicPartition> partitions =
        consumer
            .partitionsFor(Topics.NODE_EVENTS, deadline.remaining("listing node event partitions"))
            .stream()
            .map(info -> new TopicPartition(info.topic(), info.partition()))
            .toList();
    return consumer
        .beginningOffsets(partitions, deadline.remaining("reading where node events start"))
        .values()
        .stream()
        .anyMatch(start -> start > 0);
  }

  /** The snapshots (node to its JSON) and their positions into the scratch schema. */
  private long load(Map<String, String> newest, Deadline<RebuildTimeoutException> deadline) {
    Tuple snapshots =
        Tuple.tuple()
            .addArrayOfString(newest.keySet().toArray(String[]::new))
            .addArrayOfString(newest.values().toArray(String[]::new));
    pool.query(
            "CREATE TABLE "
                + SNAPSHOT_POSITIONS
                + " (node text PRIMARY KEY, epoch bigint NOT NULL, seq bigint NOT NULL)")
        .execute()
        .await()
        .atMost(deadline.remaining("loading snapshots"));
    pool.preparedQuery(
            "INSERT INTO "
                + SNAPSHOT_POSITIONS
                + " SELECT s.node, (s.doc::jsonb->>'epoch')::bigint, (s.doc::jsonb->>'seq')::bigint"
                + " FROM unnest($1::text[], $2::text[]) AS s(node, doc)")
        .execute(snapshots)
        .await()
        .atMost(deadline.remaining("loading snapshots"));
    for (String table : NodeSnapshots.TABLES) {
      String scratch = SCRATCH.table(table);
      pool.preparedQuery(
              "INSERT INTO "
                  + scratch
                  + " SELECT r.* FROM unnest($1::text[], $2::text[]) AS s(node, doc),"
                  + " jsonb_populate_recordset(NULL::"
                  + scratch
                  + ", s.doc::jsonb->'tables'->'"
                  + table
                  + "') AS r")
          .execute(snapshots)
          .await()
          .atMost(deadline.remaining("loading snapshots"));
    }
    return newest.size();
  }

  private Set<String> liveNodes(Deadline<RebuildTimeoutException> deadline) {
    Set<String> names = new HashSet<>();
    pool.query("SELECT name FROM " + ProjectionTables.LIVE.table("nodes"))
        .execute()
        .await()
        .atMost(deadline.remaining("reading the live nodes"))
        .forEach(row -> names.add(row.getString("name")));
    return names;
  }

  /**
   * Reads every partition from the beginning up to its end offset as of the start; the events of
   * nodes not in {@code liveNodes} are applied to the live tables too, before the scratch ones.
   */
  private Map<TopicPartition, Long> replay(
      Deadline<RebuildTimeoutException> deadline, long[] counts, Set<String> liveNodes) {
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            KafkaClientConfig.assigningConsumer(kafkaConfig, 5000),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      return TopicToEnd.read(
          consumer,
          Topics.NODE_EVENTS,
          deadline.remaining("replaying"),
          records -> {
            List<DecodedRecord.Accepted> events = new ArrayList<>();
            List<Headers> headers = new ArrayList<>();
            records.forEach(record -> headers.add(record.headers()));
            // The live projection's check, so the rebuild refuses exactly what it refused.
            NodeEventAuthenticity.Check check = authenticity.forBatchBlocking(headers);
            List<ConsumerRecord<String, byte[]>> batch = new ArrayList<>();
            records.forEach(batch::add);
            List<DecodedRecord> decoded =
                NodeEventAuthenticity.decodeAll(
                    batch,
                    record ->
                        NodeEventAuthenticity.decode(
                            check, record.key(), record.value(), record.headers()));
            for (DecodedRecord record : decoded) {
              counts[0]++;
              switch (record) {
                case DecodedRecord.Accepted accepted -> events.add(accepted);
                case DecodedRecord.Rejected ignored -> counts[1]++;
              }
            }
            restoring()
                .apply(
                    events.stream()
                        .filter(event -> !liveNodes.contains(event.envelope().subject()))
                        .toList())
                .await()
                .atMost(deadline.remaining("restoring the live tables"));
            isolation(counts).apply(events).await().atMost(deadline.remaining("applying a batch"));
          });
    } catch (TopicToEnd.TopicReadTimeoutException e) {
      throw timedOut(deadline, e);
    }
  }

  /**
   * The live projection's treatment of events PostgreSQL refuses (left out, the others applied), so
   * that a rebuild ends where the live projection is; each one is counted as refused.
   */
  private RefusalIsolation<DecodedRecord.Accepted> isolation(long[] counts) {
    return new RefusalIsolation<>(
        events -> writer.applyDecoded(SCRATCH, events),
        (event, refusal) -> {
          counts[1]++;
          return Uni.createFrom().voidItem();
        });
  }

  /**
   * The live apply of the events of nodes the live tables lack: what PostgreSQL refuses is left
   * out, as the live projection leaves it out (the scratch replay counts it).
   */
  private RefusalIsolation<DecodedRecord.Accepted> restoring() {
    return new RefusalIsolation<>(
        events -> writer.applyDecoded(ProjectionTables.LIVE, events),
        (event, refusal) -> Uni.createFrom().voidItem());
  }

  /** The live projection holds every replayed event once its group has committed past them. */
  private void awaitLiveConsumer(
      Map<TopicPartition, Long> ends, Deadline<RebuildTimeoutException> deadline) {
    Map<String, Object> adminConfig = KafkaClientConfig.shared(kafkaConfig);
    try (Admin admin = Admin.create(adminConfig)) {
      while (true) {
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin
                .listConsumerGroupOffsets(liveGroup)
                .partitionsToOffsetAndMetadata()
                .get(
                    deadline.remaining("reading the live group's offsets").toMillis(),
                    TimeUnit.MILLISECONDS);
        Set<TopicPartition> behind =
            ends.entrySet().stream()
                .filter(e -> e.getValue() > 0)
                .filter(
                    e ->
                        committed.get(e.getKey()) == null
                            || committed.get(e.getKey()).offset() < e.getValue())
                .map(Map.Entry::getKey)
                .collect(Collectors.toSet());
        if (behind.isEmpty()) {
          return;
        }
        deadline.remaining("waiting for the live projection to catch up on " + behind);
        Thread.sleep(200); // polling the broker's committed offsets; bounded by the deadline
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the live projection", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot read the offsets of group " + liveGroup + ": " + e.getCause().getMessage(), e);
    } catch (TimeoutException e) {
      throw new RebuildTimeoutException(
          "timed out reading the offsets of group " + liveGroup + " from Kafka");
    }
  }

  private static RebuildTimeoutException timedOut(
      Deadline<RebuildTimeoutException> deadline, TopicToEnd.TopicReadTimeoutException e) {
    return deadline.expired(e.getMessage());
  }
}
