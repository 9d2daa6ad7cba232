package io.fleetwave.controlplane.bench;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.MigratedDatabase;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Issue 2's benchmark: prints figures, asserts nothing.
 *
 * <ol>
 *   <li>Projection throughput: 1,000,000 events of 10,000 nodes, each signed by its node's enrolled
 *       key, are published first; the packaged control plane (node identity required) then projects
 *       them into a PostgreSQL with its default durability, and the rate is measured from the
 *       database. Baseline: the same events COPY'd as rows into the projection's history table (its
 *       keys, its partitions) of the same database, in the same run ({@link CopyBaseline}).
 *   <li>Latency: p99 from publishing a heartbeat to seeing it in {@code GET /api/v1/nodes/{name}}
 *       under a heartbeat load across the 10,000 nodes, over at least 2,000 probes after a warm-up
 *       ({@link LatencyProbe}). Baseline: p99 of a bare Kafka produce-to-consume round trip
 *       measured at the same time, on the same broker.
 * </ol>
 *
 * <p>Each report starts with the settings it ran with ({@link BenchConditions}).
 *
 * <p>Run: {@code ./mvnw -Pbench -pl control-plane -am verify -DskipTests} (sizes via -Dbench.*;
 * {@code -Dbench.sizes=1000,5000,10000} measures several fleet sizes in one run, each on a fresh
 * broker, database and control plane, and ends with a table of the figures per size).
 */
public final class ProjectionBench {
  private ProjectionBench() {}

  public static void main(String[] args) throws Exception {
    BenchSettings base = BenchSettings.fromSystemProperties();
    Path out = BenchServices.output();
    List<Integer> sizes = sizes(base.nodes());
    System.out.println("Fleetwave projection benchmark: " + base + ", sizes " + sizes);
    StringBuilder reports = new StringBuilder();
    List<SizeResult> results = new ArrayList<>();
    for (int nodes : sizes) {
      BenchSettings settings = base.withNodes(nodes);
      SizeResult result = runOne(settings, out);
      results.add(result);
      String report = result.report();
      System.out.println(report);
      reports.append(report).append(System.lineSeparator());
    }
    if (results.size() > 1) {
      String scaling = scaling(results);
      System.out.println(scaling);
      reports.append(scaling);
    }
    Files.writeString(out.resolve("projection-bench.txt"), reports.toString());
  }

  /** {@code -Dbench.sizes=1000,5000,10000}: fleet sizes measured one after the other. */
  private static List<Integer> sizes(int defaultNodes) {
    String property = System.getProperty("bench.sizes", "");
    if (property.isBlank() || property.startsWith("$")) {
      return List.of(defaultNodes);
    }
    return Arrays.stream(property.split(",")).map(String::trim).map(Integer::valueOf).toList();
  }

  /** One fleet size on a fresh broker, database and control plane, so sizes do not mix. */
  private static SizeResult runOne(BenchSettings settings, Path out) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedPostgres postgres = EmbeddedPostgres.start()) {
      BenchServices.createTopics(kafka, settings.partitions(), RoundTrip.TOPIC);

      BenchKeys keys = BenchKeys.generate(settings.nodes());
      double publishRate = EventLoad.publishAll(kafka.bootstrapServers(), settings, keys);
      Map<String, String> env = BenchServices.controlPlane(kafka, postgres);
      // -Dbench.consumers=N: the projection's consumers in the process (the channel's partitions
      // attribute), to compare against one consumer on the same machine.
      String consumers = System.getProperty("bench.consumers", "");
      if (!consumers.isBlank() && !consumers.startsWith("$")) {
        env.put("MP_MESSAGING_INCOMING_NODE_EVENTS_PARTITIONS", consumers);
      }
      configurePostgres(postgres, out.resolve("postgresql-" + settings.nodes()));
      try (Connection db = FleetApiBench.connect(postgres)) {
        // Enrolled before the control plane starts, so that no record meets an unknown key.
        MigratedDatabase.migrate(postgres);
        keys.enroll(db, 0, settings.nodes());
      }
      try (Connection db = FleetApiBench.connect(postgres);
          // Launched, not started: the projection begins on the backlog while the application is
          // still starting, and a small backlog was done by the time readiness said UP (2,000 x 50
          // measured "0 events/s" on 2026-12-06). The measure starts at the first row applied.
          ControlPlaneProcess controlPlane =
              ControlPlaneProcess.launch(
                  settings.app(),
                  settings.port(),
                  env,
                  out.resolve("control-plane-" + settings.nodes() + ".log"))) {
        BenchConditions conditions = conditions(db, settings);
        System.out.print(conditions.text());
        ProjectionRate.Result projection;
        if (PgStatementProfile.requested()) {
          PgStatementProfile.reset(db);
        }
        if (PgWaitSampler.requested()) {
          try (PgWaitSampler waits = new PgWaitSampler(postgres)) {
            projection =
                ProjectionRate.measure(db, kafka.bootstrapServers(), settings, controlPlane);
            System.out.print(waits.report());
          }
        } else {
          projection = ProjectionRate.measure(db, kafka.bootstrapServers(), settings, controlPlane);
        }
        if (PgStatementProfile.requested()) {
          System.out.print(PgStatementProfile.report(db));
        }
        controlPlane.awaitReady();
        // Latency before the COPY: a million-row COPY (and the autovacuum and checkpoint after it)
        // on the same database would otherwise stall the first probes.
        ProjectionMeters.Batches before =
            ProjectionMeters.Batches.read(controlPlane.managementPort());
        long phaseStarted = System.nanoTime();
        LatencyProbe.Result latency =
            LatencyProbe.run(
                kafka.bootstrapServers(),
                controlPlane.port(),
                controlPlane.token("viewer"),
                settings,
                keys);
        String meters =
            ProjectionMeters.Batches.read(controlPlane.managementPort())
                    .since(before, java.time.Duration.ofNanos(System.nanoTime() - phaseStarted))
                + "\n"
                + ProjectionMeters.read(controlPlane.managementPort());
        double load = load();
        CopyBaseline.Rates copy = CopyBaseline.measure(db, settings);
        return new SizeResult(
            settings, conditions, publishRate, projection, copy, latency, meters, load);
      }
    }
  }

  /**
   * Settings that need PostgreSQL restarted, applied with one restart before the control plane
   * starts (the log collector and preloaded libraries take effect only at a start).
   *
   * <p>{@code -Dbench.pgSlowMillis=N}: PostgreSQL logs every statement slower than N ms with its
   * plan (auto_explain), every checkpoint, autovacuum run and lock wait into files under {@code
   * directory}, so a stalled batch can be matched to what the database was doing at the time.
   *
   * <p>{@code -Dbench.pgStatements=true}: {@link PgStatementProfile}.
   */
  static void configurePostgres(EmbeddedPostgres postgres, Path directory) throws Exception {
    String slow = System.getProperty("bench.pgSlowMillis", "");
    boolean logSlow = !slow.isBlank() && !slow.startsWith("$");
    List<String> settings = new ArrayList<>();
    List<String> preload = new ArrayList<>();
    if (logSlow) {
      Files.createDirectories(directory);
      preload.add("auto_explain");
      settings.add("ALTER SYSTEM SET logging_collector = on");
      // The plan of each slow statement too (row counts, no per-node timing: cheap enough), and
      // no bind parameters: a batch's arrays would make each line megabytes long.
      settings.add("ALTER SYSTEM SET auto_explain.log_min_duration = " + slow.strip());
      settings.add("ALTER SYSTEM SET auto_explain.log_analyze = on");
      settings.add("ALTER SYSTEM SET auto_explain.log_timing = off");
      settings.add("ALTER SYSTEM SET log_parameter_max_length = 0");
      settings.add("ALTER SYSTEM SET log_directory = '" + directory.toAbsolutePath() + "'");
      settings.add(
          "ALTER SYSTEM SET log_min_duration_statement = " + Integer.parseInt(slow.strip()));
      settings.add("ALTER SYSTEM SET log_checkpoints = on");
      settings.add("ALTER SYSTEM SET log_autovacuum_min_duration = 0");
      settings.add("ALTER SYSTEM SET log_lock_waits = on");
      settings.add("ALTER SYSTEM SET log_line_prefix = '%m [%p] '");
    }
    if (PgStatementProfile.requested()) {
      preload.add(PgStatementProfile.LIBRARY);
      settings.addAll(PgStatementProfile.settings());
    }
    if (preload.isEmpty()) {
      return;
    }
    settings.add("ALTER SYSTEM SET shared_preload_libraries = '" + String.join(",", preload) + "'");
    try (Connection db = FleetApiBench.connect(postgres);
        var statement = db.createStatement()) {
      if (logSlow) {
        // Loaded into this session so that its settings are checked as they are written.
        statement.execute("LOAD 'auto_explain'");
      }
      for (String setting : settings) {
        statement.execute(setting);
      }
    }
    postgres.stop();
    postgres.restart();
    if (logSlow) {
      System.out.println("PostgreSQL logs slow work to " + directory.toAbsolutePath());
    }
  }

  /** The settings this size runs with, printed before its figures and in its report. */
  private static BenchConditions conditions(Connection db, BenchSettings settings)
      throws java.sql.SQLException {
    return BenchConditions.of(BenchKeys.describe(), db)
        .with(
            "sizes",
            "%,d nodes x %,d events (%,d), %d partitions"
                .formatted(
                    settings.nodes(),
                    settings.eventsPerNode(),
                    settings.totalEvents(),
                    settings.partitions()))
        .with(
            "latency load",
            "%,d events/s over the fleet; %d probers, %d probe nodes, %,d probes counted"
                .formatted(
                    settings.heartbeatsPerSecond(),
                    settings.probers(),
                    settings.probeNodes(),
                    settings.probes()))
        .with(
            "warm-up",
            "%d s of the same load, probes and Kafka round trips, not counted"
                .formatted(settings.latencyWarmUp().toSeconds()))
        .with(
            "COPY baseline",
            "the same events into node_events (its keys and partitions), same database, after"
                + " the latency phase, "
                + CopyBaseline.REPEATS
                + " times under epochs of their own: the median")
        .with(
            "session sampler",
            PgWaitSampler.requested()
                ? "on during the backlog (" + PgWaitSampler.OVERHEAD + ")"
                : "off (-Dbench.pgWaits=true)");
  }

  /** The machine's load average over the last minute, printed next to each figure. */
  private static double load() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  /** How the figures move with the fleet size: flat, linear or worse per node. */
  private static String scaling(List<SizeResult> results) {
    StringBuilder table = new StringBuilder();
    table.append("Scaling (one row per fleet size, same run)\n");
    table.append(
        "  nodes     events  projection ev/s  COPY rows/s  ratio  projection s  us/node"
            + "  API p50 ms  API p99 ms  API max ms  Kafka p99 ms  ratio p99  load\n");
    for (SizeResult r : results) {
      table.append(
          "  %,6d %,10d %,16.0f %,12.0f %6.2f %13.1f %8.1f %11.1f %11.1f %11.1f %13.1f %10.2f %5.2f\n"
              .formatted(
                  r.settings().nodes(),
                  r.settings().totalEvents(),
                  r.projection().eventsPerSecond(),
                  r.copy().median(),
                  r.projection().eventsPerSecond() / r.copy().median(),
                  r.projection().seconds(),
                  r.projection().seconds() * 1e6 / r.settings().nodes(),
                  r.latency().api().p50Ms(),
                  r.latency().api().p99Ms(),
                  r.latency().api().maxMs(),
                  r.latency().kafka().p99Ms(),
                  r.latency().api().p99Ms() / r.latency().kafka().p99Ms(),
                  r.load()));
    }
    return table.toString();
  }

  /** The figures of one fleet size. */
  record SizeResult(
      BenchSettings settings,
      BenchConditions conditions,
      double publishRate,
      ProjectionRate.Result projection,
      CopyBaseline.Rates copy,
      LatencyProbe.Result latency,
      String meters,
      double load) {
    String report() {
      return """
          Projection throughput (%,d events, %,d nodes)
          %s\
            publish to Kafka (setup)      %,12.0f events/s
            projection (control plane)    %,12.0f events/s
            COPY into node_events         %,12.0f rows/s   (median of %s; same table, keys, durability)
            ratio projection / COPY       %12.2f   (target >= 0.30)
            control plane CPU per event   %12.1f us   (the machine: %.2f of %d cores busy meanwhile)
            PostgreSQL CPU per event      %12.1f us   (its processes that lived through the backlog)
          Publish -> visible in GET /api/v1/nodes/{name}, heartbeat load %,d events/s over %,d nodes
            API visibility                %s
            bare Kafka round trip         %s
            (the warm-up's round trips  %s)
            ratio p99 API / p99 Kafka     %12.2f   (target <= 2)
            probes not visible within 10 s: %d
          %s\
            load average (1 min) after the latency phase: %.2f
            the control plane's own meters (seconds; batch = hand-over to ack, staleness =
            oldest record's Kafka timestamp to commit; the quantiles' window still holds the
            backlog's batches, the first line is the latency phase's alone):
          %s
          """
          .formatted(
              settings.totalEvents(),
              settings.nodes(),
              conditions.text(),
              publishRate,
              projection.eventsPerSecond(),
              copy.median(),
              copy.each().stream().map("%,.0f"::formatted).toList(),
              projection.eventsPerSecond() / copy.median(),
              projection.controlPlaneMicrosPerEvent(),
              projection.busyCores(),
              Runtime.getRuntime().availableProcessors(),
              projection.postgresMicrosPerEvent(),
              settings.heartbeatsPerSecond(),
              settings.nodes(),
              latency.api(),
              latency.kafka(),
              latency.kafkaWarmUp(),
              latency.api().p99Ms() / latency.kafka().p99Ms(),
              latency.timeouts(),
              latency.tail(),
              load,
              meters);
    }
  }

  /** Benchmark sizes, from {@code -Dbench.*} system properties. */
  record BenchSettings(
      int nodes,
      int eventsPerNode,
      int partitions,
      int heartbeatsPerSecond,
      int probes,
      int probers,
      Duration latencyWarmUp,
      int probeNodes,
      Path app,
      int port) {
    static BenchSettings fromSystemProperties() {
      return new BenchSettings(
          Integer.getInteger("bench.nodes", 10_000),
          Integer.getInteger("bench.eventsPerNode", 100),
          Integer.getInteger("bench.partitions", 8),
          Integer.getInteger("bench.heartbeatsPerSecond", 1_000),
          atLeast("bench.probes", 2_000, 2_000),
          atLeast("bench.probers", 4, 1),
          Duration.ofSeconds(Integer.getInteger("bench.latencyWarmupSeconds", 20)),
          100,
          BenchServices.app(),
          BenchServices.port());
    }

    BenchSettings withNodes(int fleet) {
      return new BenchSettings(
          fleet,
          eventsPerNode,
          partitions,
          heartbeatsPerSecond,
          probes,
          probers,
          latencyWarmUp,
          Math.min(probeNodes, fleet / 2),
          app,
          port);
    }

    /** {@code -Dname}, refused below {@code minimum}: fewer than 2,000 probes make no p99. */
    private static int atLeast(String name, int byDefault, int minimum) {
      int value = Integer.getInteger(name, byDefault);
      if (value < minimum) {
        throw new IllegalArgumentException(
            "-D%s=%d: at least %,d (a p99 of fewer probes is its second-worst call)"
                .formatted(name, value, minimum));
      }
      return value;
    }

    long totalEvents() {
      return (long) nodes * eventsPerNode;
    }
  }
}
