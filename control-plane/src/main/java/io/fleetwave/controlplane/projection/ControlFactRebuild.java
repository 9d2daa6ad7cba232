package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.kafka.KafkaClientConfig;
import io.fleetwave.controlplane.kafka.TopicToEnd;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.Topics;
import io.fleetwave.events.fact.ControlFact;
import io.vertx.mutiny.sqlclient.Pool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The rebuild's part for fleet.control-facts: every fact from offset 0, applied to the live tables
 * (restoring those a lost database lacks; the others are skipped by id) and folded into the scratch
 * schema, whose tables are then compared with the live ones row by row.
 */
public final class ControlFactRebuild {
  private final Pool pool;
  private final ControlFacts apply;
  private final String scratch;

  public ControlFactRebuild(Pool pool, ControlFacts apply, String scratch) {
    this.pool = pool;
    this.apply = apply;
    this.scratch = scratch;
  }

  /**
   * Applies every fact, in log order, to the live tables and then to the scratch ones.
   *
   * @return how many facts were read
   */
  public long replay(Map<String, Object> kafkaConfig, Duration timeout) {
    List<Envelope<ControlFact>> facts = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            KafkaClientConfig.assigningConsumer(kafkaConfig, 5000),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      for (ConsumerRecord<String, byte[]> record :
          TopicToEnd.readAll(consumer, Topics.CONTROL_FACTS, timeout)) {
        try {
          facts.add(ControlFacts.decode(record.value()));
        } catch (EventRejectedException e) {
          // The follower left it out too: the comparison stays meaningful.
        }
      }
    } catch (TopicToEnd.TopicReadTimeoutException e) {
      throw new RebuildTimeoutException("reading " + Topics.CONTROL_FACTS + ": " + e.getMessage());
    }
    for (String schema : List.of(ProjectionTables.LIVE.schema(), scratch)) {
      for (Envelope<ControlFact> fact : facts) {
        apply.apply(fact, schema).await().atMost(timeout);
      }
    }
    return facts.size();
  }

  public List<String> differences(Duration timeout) {
    List<String> differences = new ArrayList<>();
    for (Map.Entry<String, String> table : ControlFacts.TABLES.entrySet()) {
      String rows = "SELECT " + table.getValue() + " FROM ";
      differences.addAll(
          ProjectionComparison.differences(
              pool,
              table.getKey(),
              rows + "public." + table.getKey(),
              rows + scratch + "." + table.getKey(),
              timeout));
    }
    return differences;
  }

  public Map<String, Long> rowCounts(Duration timeout) {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (String table : ControlFacts.TABLES.keySet()) {
      counts.put(table, ProjectionComparison.rowCount(pool, scratch + "." + table, timeout));
    }
    return counts;
  }
}
