package io.fleetwave.controlplane.bench;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.events.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.Map;

/**
 * Issue 2's benchmark: prints figures, asserts nothing.
 *
 * <ol>
 *   <li>Projection throughput: 1,000,000 events of 10,000 nodes are published first; the packaged
 *       control plane then projects them and the rate is measured from the database. Baseline: the
 *       same events COPY'd as rows into a plain table of the same database, in the same run.
 *   <li>Latency: p99 from publishing a heartbeat to seeing it in {@code GET /api/v1/nodes/{name}}
 *       under a heartbeat load across the 10,000 nodes. Baseline: p99 of a bare Kafka
 *       produce-to-consume round trip measured at the same time, on the same broker.
 * </ol>
 *
 * Run: {@code ./mvnw -Pbench -pl control-plane -am verify -DskipTests} (sizes via -Dbench.*).
 */
public final class ProjectionBench {
  private ProjectionBench() {}

  public static void main(String[] args) throws Exception {
    BenchSettings settings = BenchSettings.fromSystemProperties();
    Path out = Path.of("target", "bench");
    Files.createDirectories(out);
    System.out.println("Fleetwave projection benchmark: " + settings);
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedPostgres postgres = EmbeddedPostgres.start()) {
      kafka.createTopics(settings.partitions(), Topics.NODE_EVENTS, Topics.NODE_EVENTS_DLQ);
      kafka.createTopics(settings.partitions(), EmbeddedKafka.compacted(), Topics.NODE_DESIRED);
      kafka.createTopics(
          settings.partitions(), Topics.NODE_COMMANDS, Topics.ROLLOUT_EVENTS, RoundTrip.TOPIC);

      double publishRate = EventLoad.publishAll(kafka.bootstrapServers(), settings);
      Map<String, String> env =
          Map.of(
              "KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers(),
              "QUARKUS_DATASOURCE_REACTIVE_URL", postgres.reactiveUrl(),
              "QUARKUS_DATASOURCE_JDBC_URL", postgres.jdbcUrl(),
              "QUARKUS_DATASOURCE_USERNAME", EmbeddedPostgres.USER,
              "QUARKUS_DATASOURCE_PASSWORD", EmbeddedPostgres.PASSWORD);
      try (Connection db =
              DriverManager.getConnection(
                  postgres.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
          ControlPlaneProcess controlPlane =
              ControlPlaneProcess.start(
                  settings.app(), settings.port(), env, out.resolve("control-plane.log"))) {
        double projectionRate = ProjectionRate.measure(db, settings);
        double copyRate = CopyBaseline.measure(db, settings);
        LatencyProbe.Result latency =
            LatencyProbe.run(
                kafka.bootstrapServers(),
                controlPlane.port,
                controlPlane.token("viewer"),
                settings);

        String report =
            """
            Projection throughput (%,d events, %,d nodes)
              publish to Kafka (setup)      %,12.0f events/s
              projection (control plane)    %,12.0f events/s
              COPY into a plain table       %,12.0f rows/s
              ratio projection / COPY       %12.2f   (target >= 0.30)
            Publish -> visible in GET /api/v1/nodes/{name}, heartbeat load %,d events/s over %,d nodes
              API visibility                %s
              bare Kafka round trip         %s
              ratio p99 API / p99 Kafka     %12.2f
              probes not visible within 10 s: %d
            """
                .formatted(
                    settings.totalEvents(),
                    settings.nodes(),
                    publishRate,
                    projectionRate,
                    copyRate,
                    projectionRate / copyRate,
                    settings.heartbeatsPerSecond(),
                    settings.nodes(),
                    latency.api(),
                    latency.kafka(),
                    latency.api().p99Ms() / latency.kafka().p99Ms(),
                    latency.timeouts());
        System.out.println(report);
        Files.writeString(out.resolve("projection-bench.txt"), report);
      }
    }
  }

  /** Benchmark sizes, from {@code -Dbench.*} system properties. */
  record BenchSettings(
      int nodes,
      int eventsPerNode,
      int partitions,
      int heartbeatsPerSecond,
      Duration latencyDuration,
      int probeNodes,
      Path app,
      int port) {
    static BenchSettings fromSystemProperties() {
      return new BenchSettings(
          Integer.getInteger("bench.nodes", 10_000),
          Integer.getInteger("bench.eventsPerNode", 100),
          Integer.getInteger("bench.partitions", 8),
          Integer.getInteger("bench.heartbeatsPerSecond", 1_000),
          Duration.ofSeconds(Integer.getInteger("bench.latencySeconds", 30)),
          100,
          Path.of(System.getProperty("bench.app", "target/quarkus-app")),
          Integer.getInteger("bench.port", 18080));
    }

    long totalEvents() {
      return (long) nodes * eventsPerNode;
    }
  }
}
