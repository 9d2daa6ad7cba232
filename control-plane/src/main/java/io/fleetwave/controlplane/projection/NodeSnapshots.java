package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.config.ProjectionConfig;
import io.fleetwave.controlplane.database.ColumnArrays;
import io.fleetwave.controlplane.kafka.AcknowledgedProducers;
import io.fleetwave.controlplane.kafka.KafkaClientConfig;
import io.fleetwave.controlplane.rebuild.ProjectionRebuild;
import io.fleetwave.events.Topics;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.common.annotation.Identifier;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

/**
 * Publishes each node's projected state to the compacted {@code fleet.node-snapshots} (key = node),
 * so that "rebuild from the log" stays true once Kafka's retention has deleted the oldest node
 * events: a rebuild loads the snapshots and folds the retained tail, whose events up to a
 * snapshot's position the fold skips as it skips any replay ({@link ProjectionRebuild}).
 *
 * <p>A snapshot is the node's rows of every projection table but the history, as PostgreSQL's own
 * JSON of them ({@code to_jsonb}), read in one statement and so consistent with the position
 * (last_epoch, last_seq) it carries. Only nodes whose position moved since their last acknowledged
 * snapshot are published ({@code node_snapshot_marks}); a mark is written after Kafka acknowledged
 * the snapshot, so a failed run publishes again at the next one. Replicas may run it at once: both
 * publish the same state and compaction keeps one.
 *
 * <p>What this asks of Kafka's retention of fleet.node-events: longer than the snapshot interval
 * plus the time to publish, so that every deleted event is older than some published snapshot of
 * its node. Should it not be, the rebuild counts the lost events as missed on the node row and
 * reports the node as different.
 */
@ApplicationScoped
public class NodeSnapshots {
  private static final Logger LOG = Logger.getLogger(NodeSnapshots.class);
  private static final int CHUNK = 500;
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** The projection's tables a snapshot holds: every one but the histories. */
  public static final List<String> TABLES =
      ProjectionTables.TABLES.stream()
          .filter(t -> !ProjectionTables.HISTORIES.contains(t))
          .toList();

  private static final String CHANGED =
      "SELECT n.name, n.last_epoch, n.last_seq, json_build_object('epoch', n.last_epoch, 'seq',"
          + " n.last_seq, 'tables', json_build_object("
          + TABLES.stream()
              .map(
                  t ->
                      t.equals("nodes")
                          ? "'nodes', json_build_array(to_json(n))"
                          : "'"
                              + t
                              + "', coalesce((SELECT json_agg(to_json(x)) FROM "
                              + t
                              + " x WHERE x.node = n.name), '[]'::json)")
              .collect(Collectors.joining(", "))
          + "))::text AS snapshot FROM nodes n LEFT JOIN node_snapshot_marks m ON m.node = n.name"
          + " WHERE n.last_epoch >= 0 AND (m.node IS NULL OR m.epoch <> n.last_epoch"
          + " OR m.seq <> n.last_seq) ORDER BY n.name LIMIT "
          + CHUNK;

  private static final String MARK =
      "INSERT INTO node_snapshot_marks (node, epoch, seq)"
          + " SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])"
          + " ON CONFLICT (node) DO UPDATE SET epoch = EXCLUDED.epoch, seq = EXCLUDED.seq";

  private final Pool pool;
  private final Map<String, Object> kafkaConfig;
  private final Duration interval;
  private KafkaProducer<String, byte[]> producer;

  public NodeSnapshots(
      Pool pool,
      @Identifier("default-kafka-broker") Map<String, Object> kafkaConfig,
      ProjectionConfig config) {
    this.pool = pool;
    this.kafkaConfig = kafkaConfig;
    this.interval = config.snapshots().interval();
  }

  @Scheduled(
      identity = "node-snapshots",
      every = "${fleetwave.projection.snapshots.interval:5m}",
      delayed = "${fleetwave.projection.snapshots.interval:5m}",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
  void onSchedule() {
    try {
      int published = publish();
      LOG.debugf("node snapshots: %d published", published);
    } catch (RuntimeException e) {
      LOG.warnf("node snapshots not published (tried again in %s): %s", interval, e.getMessage());
    }
  }

  /**
   * Publishes the snapshot of every node that changed since its last one and waits for Kafka's
   * acknowledgements. Blocking: call it from a worker thread.
   *
   * @return how many snapshots were published
   */
  public synchronized int publish() {
    int published = 0;
    while (true) {
      List<Row> changed = new ArrayList<>();
      pool.query(CHANGED).execute().await().atMost(TIMEOUT).forEach(changed::add);
      if (changed.isEmpty()) {
        return published;
      }
      List<CompletableFuture<?>> acks = new ArrayList<>();
      for (Row row : changed) {
        acks.add(
            send(
                new ProducerRecord<>(
                    Topics.NODE_SNAPSHOTS,
                    row.getString("name"),
                    row.getString("snapshot").getBytes(StandardCharsets.UTF_8))));
      }
      awaitAcks(acks);
      pool.preparedQuery(MARK).execute(marks(changed)).await().atMost(TIMEOUT);
      published += changed.size();
      if (changed.size() < CHUNK) {
        return published;
      }
    }
  }

  private static Tuple marks(List<Row> rows) {
    return ColumnArrays.of(rows)
        .strings(r -> r.getString("name"))
        .longs(r -> r.getLong("last_epoch"))
        .longs(r -> r.getLong("last_seq"))
        .tuple();
  }

  private CompletableFuture<RecordMetadata> send(ProducerRecord<String, byte[]> record) {
    try {
      return AcknowledgedProducers.send(producer(), record);
    } catch (RuntimeException e) {
      // The producer could not be made: the record's acknowledgement fails like a refused one.
      return CompletableFuture.failedFuture(e);
    }
  }

  private static void awaitAcks(List<CompletableFuture<?>> acks) {
    try {
      CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new))
          .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while publishing node snapshots", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "Kafka did not take node snapshots: " + e.getCause().getMessage(), e);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Kafka did not acknowledge node snapshots within " + TIMEOUT.toSeconds() + " s", e);
    }
  }

  private KafkaProducer<String, byte[]> producer() {
    if (producer == null) {
      Map<String, Object> config = KafkaClientConfig.shared(kafkaConfig);
      config.put(ProducerConfig.ACKS_CONFIG, "all");
      config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
      config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) TIMEOUT.toMillis() / 2);
      config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
      config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis() / 2);
      config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
      producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
    }
    return producer;
  }

  @PreDestroy
  synchronized void close() {
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
    }
  }
}
