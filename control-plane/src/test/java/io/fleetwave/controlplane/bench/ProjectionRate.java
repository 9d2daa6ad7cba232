package io.fleetwave.controlplane.bench;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.events.Topics;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Measures how fast the control plane folds the published backlog into the projection.
 *
 * <p>The start and the end are read from the projection itself (the node rows); the progress in
 * between from the projection's committed Kafka offsets. Summing every node row on the measured
 * database was 9 % of PostgreSQL's time in the 10,000-node backlog (2026-12-02, pg_stat_statements:
 * 18 ms a sample over the churned rows, every 200 ms), load that the COPY baseline does not carry.
 */
final class ProjectionRate {
  private static final Duration BOUND = Duration.ofMinutes(20);

  /** The projection's consumer group (ProjectionReadiness). */
  private static final String GROUP = "fleetwave-projection";

  /** Interval of every sample: the measure ends at most this late. */
  private static final long SAMPLE_MILLIS = 200;

  /**
   * From this share of the topic committed on, the node rows are summed at every sample: offsets
   * are committed up to half a second after the records' transaction (the throttled strategy), so
   * they cannot end the measure themselves.
   */
  private static final double ROWS_FROM = 0.95;

  /**
   * The node rows are also summed every this many samples (5 s), so that the measure ends, and its
   * bound's message counts right, even where the offsets stop short of the share above.
   */
  private static final int ROWS_EVERY = 25;

  private ProjectionRate() {}

  /**
   * Events applied so far. Each node's events are one epoch numbered from 0 and applied in order,
   * so the sum of (last_seq + 1) counts them without scanning the history table.
   */
  private static long applied(Connection db) throws SQLException {
    try (Statement s = db.createStatement();
        ResultSet rs = s.executeQuery("SELECT coalesce(sum(last_seq + 1), 0) FROM nodes")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Events per second after the first sample, the seconds that took, and the CPU spent meanwhile:
   * the control plane's, per event, and the machine's, in cores busy on average (the rest of it is
   * mostly PostgreSQL's and Kafka's).
   */
  record Result(
      double eventsPerSecond,
      double seconds,
      double controlPlaneMicrosPerEvent,
      double postgresMicrosPerEvent,
      double busyCores) {}

  /**
   * @param controlPlane the control plane projecting: its CPU time so far, and whether it still
   *     runs (one that exited, say on a schema it does not know, ends the wait at once)
   */
  static Result measure(
      Connection db,
      String bootstrap,
      ProjectionBench.BenchSettings settings,
      ControlPlaneProcess controlPlane)
      throws SQLException, InterruptedException, ExecutionException, TimeoutException {
    long total = settings.totalEvents();
    long deadline = System.nanoTime() + BOUND.toNanos();
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      Map<TopicPartition, Long> ends = endOffsets(admin);
      long end = ends.values().stream().mapToLong(Long::longValue).sum();
      long firstSeen = -1;
      Duration cpuAtFirst = Duration.ZERO;
      PostgresCpu postgres = PostgresCpu.of(db);
      Duration postgresAtFirst = Duration.ZERO;
      MachineCpu.Sample machineAtFirst = null;
      long appliedAtFirst = 0;
      long applied = 0;
      long samples = 0;
      while (applied < total) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "projection applied %,d of %,d events within %s".formatted(applied, total, BOUND));
        }
        if (!controlPlane.alive()) {
          throw new IllegalStateException(
              "the control plane exited after the projection applied %,d of %,d events (its log is under target/bench)"
                  .formatted(applied, total));
        }
        Thread.sleep(SAMPLE_MILLIS);
        samples++;
        boolean rowsNeeded =
            firstSeen < 0
                || samples % ROWS_EVERY == 0
                || committed(admin, ends.keySet()) >= ROWS_FROM * end;
        if (!rowsNeeded) {
          continue;
        }
        applied = applied(db);
        if (firstSeen < 0 && applied > 0) {
          firstSeen = System.nanoTime();
          cpuAtFirst = controlPlane.cpuTime();
          postgresAtFirst = postgres.now();
          machineAtFirst = MachineCpu.sample();
          appliedAtFirst = applied;
        }
      }
      double seconds = (System.nanoTime() - firstSeen) / 1e9;
      long events = total - appliedAtFirst;
      double cpuMicros = controlPlane.cpuTime().minus(cpuAtFirst).toNanos() / 1e3;
      double postgresMicros = postgres.now().minus(postgresAtFirst).toNanos() / 1e3;
      double busyCores = MachineCpu.sample().busyCoresSince(machineAtFirst);
      System.out.printf(
          "projected %,d events in %.1f s (after the first %,d)%n",
          events, seconds, appliedAtFirst);
      return new Result(
          events / seconds, seconds, cpuMicros / events, postgresMicros / events, busyCores);
    }
  }

  private static Map<TopicPartition, Long> endOffsets(Admin admin)
      throws InterruptedException, ExecutionException, TimeoutException {
    var partitions =
        admin
            .describeTopics(List.of(Topics.NODE_EVENTS))
            .allTopicNames()
            .get(30, TimeUnit.SECONDS)
            .get(Topics.NODE_EVENTS)
            .partitions()
            .stream()
            .map(p -> new TopicPartition(Topics.NODE_EVENTS, p.partition()))
            .collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()));
    Map<TopicPartition, ListOffsetsResultInfo> latest =
        admin.listOffsets(partitions).all().get(30, TimeUnit.SECONDS);
    return latest.entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
  }

  /** Offsets the projection has committed on the topic, summed (0 before its first commit). */
  private static long committed(Admin admin, Set<TopicPartition> partitions)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, OffsetAndMetadata> offsets =
        admin
            .listConsumerGroupOffsets(GROUP)
            .partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS);
    return partitions.stream()
        .map(offsets::get)
        .filter(Objects::nonNull)
        .mapToLong(OffsetAndMetadata::offset)
        .sum();
  }
}
