package io.fleetwave.systemtier;

import io.fleetwave.controlplane.kafka.KafkaClientConfig;
import io.fleetwave.controlplane.kafka.TopicToEnd;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.payload.FleetEvent;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What the projection holds of each node, as the fault tests read it over JDBC. Heartbeats are not
 * kept in the history (only the newest, on the node row), so continuity is read from the node row:
 * its position (last epoch, last seq) and the events it numbered that were never projected.
 */
record NodeHistories(EmbeddedPostgres postgres) {

  /**
   * Events applied per node whose name starts with {@code prefix}, for nodes that ran one epoch:
   * the seqs numbered less those missed.
   */
  Map<String, Long> counts(String prefix) throws SQLException {
    Map<String, Long> counts = new LinkedHashMap<>();
    eachNode(
        prefix,
        "SELECT name, last_seq + 1 - missed_events FROM nodes WHERE name LIKE ?" + " ORDER BY name",
        rows -> counts.put(rows.getString(1), rows.getLong(2)));
    return counts;
  }

  /** The projected position "epoch/seq" of each node whose name starts with {@code prefix}. */
  Map<String, String> positions(String prefix) throws SQLException {
    Map<String, String> positions = new TreeMap<>();
    eachNode(
        prefix,
        "SELECT name, last_epoch, last_seq FROM nodes WHERE name LIKE ?",
        rows -> positions.put(rows.getString(1), rows.getLong(2) + "/" + rows.getLong(3)));
    return positions;
  }

  /**
   * The newest "epoch/seq" on {@code fleet.node-events} of each node whose name starts with {@code
   * prefix}, how many distinct events those nodes have there (redeliveries counted once), and how
   * many seqs are missing there: in each run (epoch) of each node, those below its newest seq that
   * no record carries (each run numbers its events from 0).
   */
  static OnTopic onTopic(String bootstrapServers, String prefix) {
    Map<String, String> newest = new TreeMap<>();
    Map<String, long[]> max = new TreeMap<>();
    Set<String> distinct = new HashSet<>();
    Map<String, long[]> runs = new HashMap<>(); // node/epoch -> {newest seq, distinct seqs}
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            KafkaClientConfig.assigningConsumer(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), 5000),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      for (ConsumerRecord<String, byte[]> record :
          TopicToEnd.readAll(consumer, Topics.NODE_EVENTS, Duration.ofSeconds(60))) {
        if (record.key() == null || !record.key().startsWith(prefix)) {
          continue;
        }
        Envelope<FleetEvent> envelope;
        try {
          envelope = EventCodec.decode(record.value());
        } catch (EventRejectedException e) {
          throw new IllegalStateException(
              "a record of " + record.key() + " on the topic does not decode: " + e.getMessage(),
              e);
        }
        String run = envelope.subject() + "/" + envelope.epoch();
        if (distinct.add(run + "/" + envelope.seq())) {
          long[] seen = runs.computeIfAbsent(run, r -> new long[] {-1, 0});
          seen[0] = Math.max(seen[0], envelope.seq());
          seen[1]++;
        }
        long[] current = max.get(envelope.subject());
        if (current == null
            || envelope.epoch() > current[0]
            || (envelope.epoch() == current[0] && envelope.seq() > current[1])) {
          max.put(envelope.subject(), new long[] {envelope.epoch(), envelope.seq()});
        }
      }
    }
    max.forEach((node, p) -> newest.put(node, p[0] + "/" + p[1]));
    long missing = runs.values().stream().mapToLong(r -> r[0] + 1 - r[1]).sum();
    return new OnTopic(newest, distinct.size(), missing);
  }

  /** What {@link #onTopic} found. */
  record OnTopic(Map<String, String> newest, long events, long missing) {}

  /**
   * Nodes whose name starts with {@code prefix} that numbered events the projection never got:
   * "node: n missed".
   */
  List<String> seqGaps(String prefix) throws SQLException {
    List<String> gaps = new ArrayList<>();
    eachNode(
        prefix,
        "SELECT name, missed_events FROM nodes WHERE name LIKE ? AND missed_events > 0"
            + " ORDER BY name",
        rows -> gaps.add("%s: %d missed".formatted(rows.getString(1), rows.getLong(2))));
    return gaps;
  }

  long lastSeq(String node) throws SQLException {
    try (Connection connection = connect();
        PreparedStatement statement =
            connection.prepareStatement("SELECT last_seq FROM nodes WHERE name = ?")) {
      statement.setString(1, node);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? rows.getLong(1) : -1;
      }
    } catch (SQLException notYet) {
      return -1; // Flyway has not created the table yet, or the database is away
    }
  }

  long count(String sql) throws SQLException {
    try (Connection connection = connect();
        ResultSet rows = connection.createStatement().executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  /** The first column of the first row {@code sql} selects, if it selects one. */
  java.util.Optional<String> text(String sql) {
    try (Connection connection = connect();
        ResultSet rows = connection.createStatement().executeQuery(sql)) {
      return rows.next()
          ? java.util.Optional.ofNullable(rows.getString(1))
          : java.util.Optional.empty();
    } catch (SQLException away) {
      return java.util.Optional.empty(); // the database is one of the faults: ask again later
    }
  }

  /** One row of a query's result, read where it stands. */
  private interface RowReader {
    void read(ResultSet row) throws SQLException;
  }

  /**
   * Runs {@code sql}, whose one parameter is a name pattern, for the nodes whose name starts with
   * {@code prefix}, and reads each row.
   */
  private void eachNode(String prefix, String sql, RowReader reader) throws SQLException {
    try (Connection connection = connect();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, prefix + "%");
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          reader.read(rows);
        }
      }
    }
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(
        postgres.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
  }
}
