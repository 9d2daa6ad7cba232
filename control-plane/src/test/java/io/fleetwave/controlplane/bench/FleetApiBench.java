package io.fleetwave.controlplane.bench;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.MigratedDatabase;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.vertx.mutiny.sqlclient.Pool;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Issue 14 items 5 and 6: the read API a dashboard polls, at 1k, 5k and 10k nodes in one run, under
 * a concurrent read load while the projection ingests node events. Prints figures, asserts nothing.
 *
 * <p>One packaged control plane (its rollout engine off, node identity required) against an
 * embedded Kafka and a PostgreSQL with its default durability; every node event is signed by its
 * node's enrolled key ({@link BenchKeys}). For each size of {@code bench.fleetApiSizes} (default
 * 1000,5000,10000) the fleet grows to that many nodes through Kafka (the projection applies each
 * node's registration and its inventory of 8 H100s, some in MIG mode), and a running rollout of
 * that many nodes is written into the projection (as {@link RolloutApiBench} does). Then, for
 * {@code bench.fleetApiSeconds} (default 20, after 15 s of warm-up, 15 s):
 *
 * <ul>
 *   <li>an ingest load publishes {@code bench.fleetApiEventsPerSecond} (default 1000) node events
 *       per second to {@code fleet.node-events}, spread over every node (heartbeats, an inventory
 *       change every tenth event); the rate the projection actually applied is printed next to it;
 *   <li>a stand-in for the engine moves the rollout's nodes on every 100 ms;
 *   <li>{@code bench.fleetApiClients} (default 4) clients poll the endpoints a dashboard polls:
 *       nodes?size=500 (first and last page, and the first in its brief view), fleet summary, the
 *       rollout's summary, a page of 500 of its nodes, and its full view; and a trivial endpoint
 *       (the GPU catalogue, no database) as the same-run baseline. Back to back by default (the
 *       most load the clients can make); with {@code bench.fleetApiPollMillis} (the dashboard's is
 *       2000) each client starts a round of every endpoint at that fixed rate, as open dashboards
 *       do;
 *   <li>a JDBC client runs the bare SQL of a nodes page (500 nodes and their GPUs) every 500 ms:
 *       the database's own share, the second baseline, sampled rather than run back to back so that
 *       the baseline does not load the database it measures.
 * </ul>
 *
 * <p>Printed per size and endpoint: p50/p99/max, response bytes, ratio of p99 against the trivial
 * endpoint's; then each endpoint's p99 at every size and the growth from the smallest to the
 * largest against the growth in nodes (1 = flat per request, the size ratio = linear). The report
 * is also written to {@code target/bench/fleet-api-bench.txt}, the load average next to each size.
 *
 * <p>Run: {@code ./mvnw -B -pl control-plane -am verify -DskipTests -Dbench.fleetApi=true}.
 */
public final class FleetApiBench {
  private static final Duration BOUND = Duration.ofMinutes(3);
  private static final int GPUS_PER_NODE = 8;
  private static final Duration WARM_UP = Duration.ofSeconds(15);

  private FleetApiBench() {}

  record Settings(
      List<Integer> sizes,
      int clients,
      int seconds,
      int eventsPerSecond,
      int pollMillis,
      Path app,
      int port) {
    static Settings fromSystemProperties() {
      return new Settings(
          Arrays.stream(System.getProperty("bench.fleetApiSizes", "1000,5000,10000").split(","))
              .map(String::strip)
              .map(Integer::parseInt)
              .sorted()
              .toList(),
          Integer.getInteger("bench.fleetApiClients", 4),
          // 60 s: at a dashboard's pace a shorter window has too few samples for a p99.
          Integer.getInteger("bench.fleetApiSeconds", 60),
          Integer.getInteger("bench.fleetApiEventsPerSecond", 1000),
          Integer.getInteger("bench.fleetApiPollMillis", 0),
          BenchServices.app(),
          BenchServices.port());
    }
  }

  /** One size's figures. */
  record Round(
      int nodes,
      List<Measured> endpoints,
      Percentiles bareSql,
      double published,
      double projected,
      double engineChanges,
      double requests,
      String pacing,
      String conditions,
      String loadBefore,
      String loadAfter) {}

  public static void main(String[] args) throws Exception {
    Settings settings = Settings.fromSystemProperties();
    Path out = BenchServices.output();
    System.out.println("Fleetwave fleet API benchmark: " + settings);
    List<Round> rounds = new ArrayList<>();
    StringBuilder report = new StringBuilder();
    SeededApiStack.run(
        settings.app(),
        settings.port(),
        out.resolve("fleet-api-control-plane.log"),
        stack -> {
          EmbeddedPostgres postgres = stack.postgres();
          try (Connection db = connect(postgres);
              KafkaProducer<String, byte[]> producer =
                  EventLoad.producer(stack.kafka().bootstrapServers())) {
            Pool pool = MigratedDatabase.pool(postgres, stack.vertx());
            long[] nextSeq = new long[settings.sizes().getLast()];
            BenchKeys keys = BenchKeys.generate(settings.sizes().getLast());
            int fleet = 0;
            for (int size : settings.sizes()) {
              long growing = System.nanoTime();
              grow(producer, db, keys, fleet, size, nextSeq);
              fleet = size;
              UUID rollout = RolloutApiBench.seed(pool, "rollout-" + size, size);
              try (var analyze = db.createStatement()) {
                analyze.execute("ANALYZE");
              }
              System.out.printf(
                  "fleet of %,d nodes projected and a running rollout of %,d nodes seeded in %.1f s%n",
                  size, size, (System.nanoTime() - growing) / 1e9);
              Round round =
                  measure(
                      postgres,
                      producer,
                      keys,
                      stack.controlPlane(),
                      rollout,
                      size,
                      nextSeq,
                      settings);
              rounds.add(round);
              String text = format(round);
              System.out.print(text);
              report.append(text);
            }
            pool.closeAndAwait();
          }
        });
    String scaling = scaling(rounds);
    System.out.print(scaling);
    report.append(scaling);
    Files.writeString(out.resolve("fleet-api-bench.txt"), report.toString());
  }

  /** A JDBC connection to the bench's database, for the benches' seeding and bare-SQL reads. */
  static Connection connect(EmbeddedPostgres postgres) throws SQLException {
    return DriverManager.getConnection(
        postgres.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
  }

  /**
   * Nodes {@code from..to-1} enroll, register and report their GPUs; returns once the projection
   * holds every node with its GPUs.
   */
  // Bulk load: flush() waits for every send.
  @SuppressWarnings("FutureReturnValueIgnored")
  static void grow(
      KafkaProducer<String, byte[]> producer,
      Connection db,
      BenchKeys keys,
      int from,
      int to,
      long[] nextSeq)
      throws Exception {
    keys.enroll(db, from, to);
    for (long seq = 0; seq < 2; seq++) {
      for (int node = from; node < to; node++) {
        producer.send(EventLoad.record(node, seq, keys));
        nextSeq[node] = seq + 1;
      }
    }
    producer.flush();
    long deadline = System.nanoTime() + BOUND.toNanos();
    while (true) {
      long nodes = scalar(db, "SELECT count(*) FROM nodes WHERE host_kind IS NOT NULL");
      long gpus = scalar(db, "SELECT count(*) FROM gpus");
      if (nodes >= to && gpus >= (long) to * GPUS_PER_NODE) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the projection holds %,d nodes and %,d GPUs, not %,d and %,d, after %s"
                .formatted(nodes, gpus, to, (long) to * GPUS_PER_NODE, BOUND));
      }
      Thread.sleep(200); // polling the projection's tables, bounded by the deadline above
    }
  }

  static long scalar(Connection db, String sql) throws Exception {
    try (var statement = db.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static Map<String, String> endpoints(String base, UUID rollout, int size) {
    Map<String, String> endpoints = new LinkedHashMap<>();
    endpoints.put("baseline   GET /gpu-models (no database)", base + "/gpu-models");
    endpoints.put("nodes      GET /nodes?size=500", base + "/nodes?size=500");
    endpoints.put(
        "nodes last GET /nodes?size=500&page=" + (size / 500 - 1),
        base + "/nodes?size=500&page=" + (size / 500 - 1));
    endpoints.put("brief      GET /nodes?size=500&view=brief", base + "/nodes?size=500&view=brief");
    endpoints.put("fleet      GET /fleet/summary", base + "/fleet/summary");
    endpoints.put(
        "summary    GET /rollouts/{id}/summary", base + "/rollouts/" + rollout + "/summary");
    endpoints.put(
        "r-nodes    GET /rollouts/{id}/nodes?size=500",
        base + "/rollouts/" + rollout + "/nodes?size=500");
    endpoints.put("full view  GET /rollouts/{id}", base + "/rollouts/" + rollout);
    return endpoints;
  }

  private static Round measure(
      EmbeddedPostgres postgres,
      KafkaProducer<String, byte[]> producer,
      BenchKeys keys,
      ControlPlaneProcess controlPlane,
      UUID rollout,
      int size,
      long[] nextSeq,
      Settings settings)
      throws Exception {
    Map<String, String> endpoints =
        endpoints("http://localhost:" + controlPlane.port() + "/api/v1", rollout, size);
    String token = controlPlane.token("viewer");
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicBoolean recording = new AtomicBoolean(false);
    AtomicLong published = new AtomicLong();
    AtomicLong engineChanges = new AtomicLong();
    Map<String, List<Long>> micros = new ConcurrentHashMap<>();
    AtomicLongArray bytes = new AtomicLongArray(endpoints.size());
    List<Long> sqlMicros = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Thread> threads = new ArrayList<>();
    Connection engineDb = connect(postgres);
    threads.add(
        Thread.ofPlatform()
            .name("bench-ingest")
            .start(
                () ->
                    ingest(
                        producer,
                        keys,
                        size,
                        nextSeq,
                        settings.eventsPerSecond(),
                        running,
                        published)));
    threads.add(
        Thread.ofPlatform()
            .name("bench-engine-writer")
            .start(
                () ->
                    RolloutApiBench.advance(
                        engineDb, rollout, Math.max(1, size / 500), running, engineChanges)));
    threads.add(
        Thread.ofPlatform()
            .name("bench-bare-sql")
            .start(() -> bareSql(postgres, running, recording, sqlMicros)));
    threads.addAll(
        startClients(
            endpoints,
            token,
            new Pace(settings.pollMillis(), 0),
            settings.clients(),
            new Recorder(running, recording, micros, bytes)));
    Thread.sleep(WARM_UP.toMillis()); // warm-up: the same load, not recorded
    String loadBefore = Files.readString(Path.of("/proc/loadavg")).strip();
    long seqBefore;
    String conditions;
    try (Connection db = connect(postgres)) {
      seqBefore = scalar(db, "SELECT coalesce(sum(last_seq), 0) FROM nodes");
      conditions = conditions(db, size, settings).text();
    }
    long publishedBefore = published.get();
    long changesBefore = engineChanges.get();
    long start = System.nanoTime();
    recording.set(true);
    Thread.sleep(Duration.ofSeconds(settings.seconds()).toMillis()); // the measured window
    recording.set(false);
    double seconds = (System.nanoTime() - start) / 1e9;
    long seqAfter;
    try (Connection db = connect(postgres)) {
      seqAfter = scalar(db, "SELECT coalesce(sum(last_seq), 0) FROM nodes");
    }
    long publishedAfter = published.get();
    long changesAfter = engineChanges.get();
    String loadAfter = Files.readString(Path.of("/proc/loadavg")).strip();
    running.set(false);
    for (Thread thread : threads) {
      thread.join(BOUND.toMillis());
    }
    engineDb.close();
    List<Measured> measured = new ArrayList<>();
    long answered = micros.values().stream().mapToLong(List::size).sum();
    String pacing =
        settings.pollMillis() > 0
            ? "%d clients, each polling every endpoint every %d ms"
                .formatted(settings.clients(), settings.pollMillis())
            : "%d clients polling back to back".formatted(settings.clients());
    int index = 0;
    for (String label : endpoints.keySet()) {
      long[] samples =
          micros.getOrDefault(label, List.of()).stream().mapToLong(Long::longValue).toArray();
      measured.add(new Measured(label, Percentiles.of(samples), bytes.get(index++)));
    }
    return new Round(
        size,
        measured,
        Percentiles.of(sqlMicros.stream().mapToLong(Long::longValue).toArray()),
        (publishedAfter - publishedBefore) / seconds,
        (seqAfter - seqBefore) / seconds,
        (changesAfter - changesBefore) / seconds,
        answered / seconds,
        pacing,
        conditions,
        loadBefore,
        loadAfter);
  }

  /** The settings one size runs with, printed with its figures. */
  private static BenchConditions conditions(Connection db, int size, Settings settings)
      throws java.sql.SQLException {
    return BenchConditions.of(BenchKeys.describe(), db)
        .with(
            "sizes",
            "%,d nodes x %d GPUs, a running rollout of %,d nodes"
                .formatted(size, GPUS_PER_NODE, size))
        .with(
            "load",
            "%,d node events/s; %d clients (%s); stand-in engine every 100 ms"
                .formatted(
                    settings.eventsPerSecond(),
                    settings.clients(),
                    settings.pollMillis() > 0
                        ? "each round every %d ms".formatted(settings.pollMillis())
                        : "back to back"))
        .with(
            "warm-up, window",
            "%d s of the same load not recorded, then %d s recorded"
                .formatted(WARM_UP.toSeconds(), settings.seconds()))
        .with(
            "bare SQL baseline",
            "one nodes page (500 nodes and their GPUs) every 500 ms on the database measured");
  }

  /** Publishes node events at the set rate, node after node, each node's seq going on. */
  // Fire and forget at a fixed pace; the projected rate is measured from the tables.
  @SuppressWarnings("FutureReturnValueIgnored")
  static void ingest(
      KafkaProducer<String, byte[]> producer,
      BenchKeys keys,
      int size,
      long[] nextSeq,
      int eventsPerSecond,
      AtomicBoolean running,
      AtomicLong published) {
    long start = System.nanoTime();
    int node = 0;
    try {
      while (running.get()) {
        long due = (System.nanoTime() - start) * eventsPerSecond / 1_000_000_000L;
        while (published.get() < due) {
          producer.send(EventLoad.record(node, nextSeq[node]++, keys));
          published.incrementAndGet();
          node = (node + 1) % size;
        }
        Thread.sleep(5); // the pace: events due every 5 ms go out together
      }
      producer.flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** When a client's next round of requests is due: at once (back to back) or at a fixed rate. */
  record Pace(long periodMillis, long offsetMillis) {
    /** Waits until the round after {@code rounds} rounds is due; a late round starts at once. */
    void awaitRound(long startNanos, long rounds) throws InterruptedException {
      if (periodMillis <= 0) {
        return;
      }
      long dueNanos = startNanos + (offsetMillis + rounds * periodMillis) * 1_000_000L;
      long waitNanos = dueNanos - System.nanoTime();
      if (waitNanos > 0) {
        Thread.sleep(Duration.ofNanos(waitNanos)); // the pace itself, not a wait on a condition
      }
    }
  }

  /**
   * Where clients record: they poll while {@code running}, record each answer's time (in
   * microseconds, per endpoint label) and its largest size (per endpoint, in order) while {@code
   * recording}, and stop {@code running} when one fails.
   */
  record Recorder(
      AtomicBoolean running,
      AtomicBoolean recording,
      Map<String, List<Long>> micros,
      AtomicLongArray bytes) {}

  /**
   * {@code clients} threads polling every endpoint ({@link #poll}); paced clients start spread over
   * one period, as independent dashboards would.
   */
  static List<Thread> startClients(
      Map<String, String> endpoints, String token, Pace pace, int clients, Recorder recorder) {
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      Pace own = new Pace(pace.periodMillis(), pace.periodMillis() * c / clients);
      threads.add(
          Thread.ofPlatform()
              .name("bench-client-" + c)
              .start(
                  () ->
                      poll(
                          endpoints,
                          token,
                          own,
                          recorder.running(),
                          recorder.recording(),
                          recorder.micros(),
                          recorder.bytes())));
    }
    return threads;
  }

  private static void poll(
      Map<String, String> endpoints,
      String token,
      Pace pace,
      AtomicBoolean running,
      AtomicBoolean recording,
      Map<String, List<Long>> micros,
      AtomicLongArray bytes) {
    HttpClient http = HttpClient.newHttpClient();
    List<Map.Entry<String, HttpRequest>> requests = new ArrayList<>();
    endpoints.forEach(
        (label, url) ->
            requests.add(
                Map.entry(
                    label,
                    HttpRequest.newBuilder(URI.create(url))
                        .timeout(BOUND)
                        .header("Authorization", "Bearer " + token)
                        .build())));
    try {
      long start = System.nanoTime();
      for (long round = 0; running.get(); round++) {
        pace.awaitRound(start, round);
        for (int i = 0; i < requests.size() && running.get(); i++) {
          var request = requests.get(i);
          long begin = System.nanoTime();
          HttpResponse<byte[]> response =
              http.send(request.getValue(), HttpResponse.BodyHandlers.ofByteArray());
          long took = (System.nanoTime() - begin) / 1000;
          if (response.statusCode() != 200) {
            throw new IllegalStateException(
                "GET %s answered %d: %s"
                    .formatted(
                        request.getValue().uri(),
                        response.statusCode(),
                        new String(response.body(), StandardCharsets.UTF_8)));
          }
          if (recording.get()) {
            micros
                .computeIfAbsent(
                    request.getKey(),
                    k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                .add(took);
            bytes.accumulateAndGet(i, response.body().length, Math::max);
          }
        }
      }
    } catch (Exception e) {
      running.set(false);
      throw new IllegalStateException("a polling client failed", e);
    }
  }

  /** The database's own time for a nodes page: 500 nodes in name order and their GPUs. */
  private static void bareSql(
      EmbeddedPostgres postgres,
      AtomicBoolean running,
      AtomicBoolean recording,
      List<Long> sqlMicros) {
    try (Connection db = connect(postgres);
        PreparedStatement page =
            db.prepareStatement(
                "SELECT n.*, d.generation FROM nodes n LEFT JOIN desired_specs d ON d.node ="
                    + " n.name ORDER BY n.name LIMIT 500");
        PreparedStatement gpus =
            db.prepareStatement(
                "SELECT g.* FROM gpus g WHERE g.node IN (SELECT name FROM nodes ORDER BY name"
                    + " LIMIT 500) ORDER BY g.node, g.gpu_index")) {
      while (running.get()) {
        long begin = System.nanoTime();
        drain(page);
        drain(gpus);
        long took = (System.nanoTime() - begin) / 1000;
        if (recording.get()) {
          sqlMicros.add(took);
        }
        Thread.sleep(500); // one page read every 500 ms: a sample, not part of the load
      }
    } catch (Exception e) {
      throw new IllegalStateException("the bare SQL baseline failed", e);
    }
  }

  private static void drain(PreparedStatement statement) throws Exception {
    try (ResultSet rows = statement.executeQuery()) {
      int columns = rows.getMetaData().getColumnCount();
      while (rows.next()) {
        for (int c = 1; c <= columns; c++) {
          rows.getObject(c);
        }
      }
    }
  }

  private static String format(Round round) {
    StringBuilder text = new StringBuilder();
    Measured baseline = round.endpoints().getFirst();
    text.append(
        ("Fleet API at %,d nodes (8 GPUs each) with a running rollout of %,d nodes; load average"
                + " %s -> %s%n")
            .formatted(round.nodes(), round.nodes(), round.loadBefore(), round.loadAfter()));
    text.append(round.conditions());
    text.append(
        "  ingest: published %,.0f events/s, projected %,.0f events/s; stand-in engine %,.0f node"
                .formatted(round.published(), round.projected(), round.engineChanges())
            + " changes/s\n");
    text.append(
        "  reads: %s, %,.1f requests/s answered%n".formatted(round.pacing(), round.requests()));
    for (Measured measured : round.endpoints()) {
      text.append(
          "  %-44s %-44s %,10d bytes  ratio p99 / baseline %7.1f%n"
              .formatted(
                  measured.label(),
                  measured.latency(),
                  measured.bytes(),
                  measured.latency().p99Ms() / baseline.latency().p99Ms()));
    }
    text.append(
        "  %-44s %s%n".formatted("bare SQL   nodes page + its GPUs (JDBC)", round.bareSql()));
    return text.toString();
  }

  private static String scaling(List<Round> rounds) {
    StringBuilder text = new StringBuilder("Scaling: p99 ms per size (growth smallest -> largest");
    Round first = rounds.getFirst();
    Round last = rounds.getLast();
    text.append(
        ", nodes x%.0f; 1 = flat, %.0f = linear)%n"
            .formatted(
                (double) last.nodes() / first.nodes(), (double) last.nodes() / first.nodes()));
    text.append("  %-44s".formatted("endpoint"));
    rounds.forEach(r -> text.append("%10s".formatted("%,d".formatted(r.nodes()))));
    text.append("    growth\n");
    for (int i = 0; i < first.endpoints().size(); i++) {
      text.append("  %-44s".formatted(first.endpoints().get(i).label()));
      for (Round round : rounds) {
        text.append("%10.1f".formatted(round.endpoints().get(i).latency().p99Ms()));
      }
      text.append(
          "  x%6.2f%n"
              .formatted(
                  last.endpoints().get(i).latency().p99Ms()
                      / first.endpoints().get(i).latency().p99Ms()));
    }
    text.append("  %-44s".formatted("bare SQL   nodes page + its GPUs (JDBC)"));
    rounds.forEach(r -> text.append("%10.1f".formatted(r.bareSql().p99Ms())));
    text.append("  x%6.2f%n".formatted(last.bareSql().p99Ms() / first.bareSql().p99Ms()));
    return text.toString();
  }
}
