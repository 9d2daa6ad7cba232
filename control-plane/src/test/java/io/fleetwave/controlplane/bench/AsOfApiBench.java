package io.fleetwave.controlplane.bench;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Issue 35 item 1: the fleet as of a past moment ({@code asOf=} on the node list and the fleet
 * summary, rebuilt from the node history) against the same reads of the present, and what as-of
 * reads cost the projection's ingest. Prints figures, asserts nothing.
 *
 * <p>One packaged control plane (node identity required) against an embedded Kafka and a PostgreSQL
 * with its default durability; every node event is signed by its node's enrolled key. The fleet
 * ({@code bench.asOfNodes}, default 10,000 nodes of 8 H100s) registers and reports its GPUs through
 * Kafka ({@link FleetApiBench#grow}), with the history the projection keeps by default. Then, in
 * one run:
 *
 * <ol>
 *   <li><b>Ingest.</b> A backlog of {@code bench.asOfBacklog} signed events (default 20,000; a
 *       heartbeat, an inventory change every tenth, {@link BenchFleet}), signed before the clock
 *       starts, is published at once and timed until the projection has applied all of it: events
 *       projected per second. Four times: alone; with {@code bench.asOfClients} clients (default 2)
 *       reading the as-of page and summary back to back; with as many reading the same now (what
 *       any reader takes from the ingest on these cores); alone again. The moment T of the as-of
 *       reads is taken after the first backlog, so the history holds changes on both sides of it.
 *   <li><b>Latency.</b> While the projection ingests {@code bench.asOfEventsPerSecond} (default
 *       500) paced events a second, {@code bench.asOfProbers} probers (default 2) ask back to back
 *       for a page of 500 nodes with and without {@code asOf=T}, next to the GPU catalogue (no
 *       database, the floor), until each has {@code bench.asOfProbes} answers (default 2,000),
 *       after {@code bench.asOfWarmupSeconds} (default 20) of the same load not recorded; then the
 *       fleet summary with and without {@code asOf=T} the same way ({@code
 *       bench.asOfSummaryProbes}, default 100: an as-of summary takes seconds).
 * </ol>
 *
 * <p>Printed: the settings, the events/s of each ingest phase and the ratio with reads to alone,
 * p50/p99/max and bytes per endpoint, and the as-of p99 and p50 over the present's. {@code
 * -Dbench.pgSlowMillis=N} logs each statement slower than N ms with its plan ({@link
 * ProjectionBench#configurePostgres}), for the plans of the as-of SQL; off for headline figures.
 *
 * <p>Run: {@code ./mvnw -B -pl control-plane -am verify -DskipTests -Dbench.asOf=true}.
 */
public final class AsOfApiBench {
  private static final Duration BOUND = Duration.ofMinutes(5);
  private static final String PAGE = "/nodes?size=500";
  private static final String SUMMARY = "/fleet/summary";

  private AsOfApiBench() {}

  record Settings(
      int nodes,
      int backlog,
      int clients,
      int eventsPerSecond,
      int probers,
      int probes,
      int summaryProbes,
      int warmupSeconds) {
    static Settings fromSystemProperties() {
      Settings settings =
          new Settings(
              Integer.getInteger("bench.asOfNodes", 10_000),
              Integer.getInteger("bench.asOfBacklog", 20_000),
              Integer.getInteger("bench.asOfClients", 2),
              Integer.getInteger("bench.asOfEventsPerSecond", 500),
              Integer.getInteger("bench.asOfProbers", 2),
              Integer.getInteger("bench.asOfProbes", 2_000),
              // Fewer: an as-of summary counts the whole fleet's inventories, seconds a call.
              Integer.getInteger("bench.asOfSummaryProbes", 100),
              Integer.getInteger("bench.asOfWarmupSeconds", 20));
      if (settings.probes() < 2_000) {
        // Below 2,000 the p99 is the twentieth-worst answer or closer to the single worst one.
        throw new IllegalArgumentException(
            "bench.asOfProbes is " + settings.probes() + ": at least 2,000 make a p99");
      }
      return settings;
    }
  }

  /** One ingest phase: events applied per second, with or without as-of reads beside it. */
  record Ingest(String label, double eventsPerSecond, String load) {}

  public static void main(String[] args) throws Exception {
    Settings settings = Settings.fromSystemProperties();
    System.out.println("Fleetwave as-of read benchmark: " + settings);
    Path out = BenchServices.output();
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedPostgres postgres = EmbeddedPostgres.start()) {
      ProjectionBench.configurePostgres(postgres, out.resolve("as-of-postgres"));
      BenchServices.createTopics(kafka);
      try (ControlPlaneProcess controlPlane =
              ControlPlaneProcess.start(
                  BenchServices.app(),
                  BenchServices.port(),
                  BenchServices.controlPlane(kafka, postgres),
                  out.resolve("as-of-control-plane.log"),
                  "2g");
          Connection db = FleetApiBench.connect(postgres);
          KafkaProducer<String, byte[]> producer = EventLoad.producer(kafka.bootstrapServers())) {
        String report = run(settings, controlPlane, db, producer);
        System.out.print(report);
        Files.writeString(out.resolve("as-of-bench.txt"), report);
      }
    }
  }

  private static String run(
      Settings settings,
      ControlPlaneProcess controlPlane,
      Connection db,
      KafkaProducer<String, byte[]> producer)
      throws Exception {
    Fleet fleet = new Fleet(producer, db, settings.nodes());
    long growing = System.nanoTime();
    FleetApiBench.grow(producer, db, fleet.keys, 0, settings.nodes(), fleet.nextSeq);
    analyze(db);
    System.out.printf(
        "fleet of %,d nodes registered and its GPUs reported in %.1f s%n",
        settings.nodes(), (System.nanoTime() - growing) / 1e9);
    String base = "http://localhost:" + controlPlane.port() + "/api/v1";
    String token = controlPlane.token("viewer");
    List<Ingest> ingest = new ArrayList<>();
    ingest.add(fleet.drain("alone", settings.backlog(), () -> {}));
    analyze(db);
    // T: after the first backlog, before the rest: the history holds changes on both sides.
    Instant moment = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    Thread.sleep(10); // so that no event of the next phases bears T's own millisecond
    String asOf = "&asOf=" + moment;
    Map<String, String> asOfReads = new LinkedHashMap<>();
    asOfReads.put("as-of page", base + PAGE + asOf);
    asOfReads.put("as-of summary", base + SUMMARY + "?" + asOf.substring(1));
    Readers readers = new Readers(asOfReads, token, settings.clients());
    ingest.add(fleet.drain("with as-of reads", settings.backlog(), readers::start));
    Map<String, Percentiles> duringIngest = new LinkedHashMap<>(readers.stop());
    // The same readers asking for the present: what any reader costs the ingest on these cores.
    Map<String, String> nowReads = new LinkedHashMap<>();
    nowReads.put("page now", base + PAGE);
    nowReads.put("summary now", base + SUMMARY);
    Readers nowReaders = new Readers(nowReads, token, settings.clients());
    ingest.add(fleet.drain("with reads of now", settings.backlog(), nowReaders::start));
    duringIngest.putAll(nowReaders.stop());
    ingest.add(fleet.drain("alone again", settings.backlog(), () -> {}));
    String conditions = conditions(db, settings, moment).text();

    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong published = new AtomicLong();
    Thread paced =
        Thread.ofPlatform()
            .name("bench-ingest")
            .start(
                () ->
                    FleetApiBench.ingest(
                        producer,
                        fleet.keys,
                        settings.nodes(),
                        fleet.nextSeq,
                        settings.eventsPerSecond(),
                        running,
                        published));
    long seqBefore = fleet.applied();
    long publishedBefore = published.get();
    long start = System.nanoTime();
    String loadBefore = BenchConditions.loadAverage();
    Map<String, String> pages = new LinkedHashMap<>();
    pages.put("baseline   GET /gpu-models (no database)", base + "/gpu-models");
    pages.put("now        GET " + PAGE, base + PAGE);
    pages.put("as of T    GET " + PAGE + "&asOf=T", base + PAGE + asOf);
    List<Measured> pageFigures = probe(pages, token, settings, settings.probes());
    // Printed at once: the summaries' probes take long where an as-of summary takes seconds.
    pageFigures.forEach(measured -> System.out.print(line(measured)));
    System.out.print(ratios("page of 500 nodes", pageFigures.get(2), pageFigures.get(1)));
    Map<String, String> summaries = new LinkedHashMap<>();
    summaries.put("now        GET " + SUMMARY, base + SUMMARY);
    summaries.put("as of T    GET " + SUMMARY + "?asOf=T", asOfReads.get("as-of summary"));
    List<Measured> summaryFigures = probe(summaries, token, settings, settings.summaryProbes());
    double seconds = (System.nanoTime() - start) / 1e9;
    long projected = fleet.applied() - seqBefore;
    running.set(false);
    paced.join(BOUND.toMillis());
    String ingestDuringProbes =
        "published %,.0f events/s, projected %,.0f events/s over %.0f s of probes"
            .formatted((published.get() - publishedBefore) / seconds, projected / seconds, seconds);
    return format(
        settings,
        moment,
        conditions,
        ingest,
        duringIngest,
        ingestDuringProbes,
        loadBefore,
        pageFigures,
        summaryFigures);
  }

  private static void analyze(Connection db) throws Exception {
    try (var statement = db.createStatement()) {
      statement.execute("ANALYZE");
    }
  }

  /** The bench's fleet: its keys, each node's next seq, and the projection's progress on it. */
  private static final class Fleet {
    final BenchKeys keys;
    final long[] nextSeq;
    private final KafkaProducer<String, byte[]> producer;
    private final Connection db;
    private final int nodes;
    private int cursor;

    Fleet(KafkaProducer<String, byte[]> producer, Connection db, int nodes) {
      this.producer = producer;
      this.db = db;
      this.nodes = nodes;
      this.keys = BenchKeys.generate(nodes);
      this.nextSeq = new long[nodes];
    }

    /** The events the projection has applied: the sum of every node's last seq. */
    long applied() throws Exception {
      return FleetApiBench.scalar(db, "SELECT coalesce(sum(last_seq), 0) FROM nodes");
    }

    /**
     * Publishes {@code events} events at once, signed beforehand so that signing is not timed, node
     * after node, and times them until the projection has applied every one. {@code beside} starts
     * what runs beside the ingest (nothing, or the as-of readers) once the events are signed.
     */
    // Bulk load, fire and forget: the projection's progress is what is timed.
    @SuppressWarnings("FutureReturnValueIgnored")
    Ingest drain(String label, int events, Runnable beside) throws Exception {
      List<ProducerRecord<String, byte[]>> records = new ArrayList<>(events);
      for (int i = 0; i < events; i++) {
        int node = cursor;
        records.add(EventLoad.record(node, nextSeq[node]++, keys));
        cursor = (cursor + 1) % nodes;
      }
      long target = applied() + events;
      beside.run();
      String loadBefore = BenchConditions.loadAverage();
      long start = System.nanoTime();
      records.forEach(producer::send);
      producer.flush();
      long deadline = start + BOUND.toNanos();
      long done;
      while ((done = applied()) < target) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the projection applied %,d of %,d events (%s) within %s"
                  .formatted(events - (target - done), events, label, BOUND));
        }
        Thread.sleep(50); // polling the projection's progress, bounded by the deadline above
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      Ingest ingest =
          new Ingest(label, events / seconds, loadBefore + " -> " + BenchConditions.loadAverage());
      System.out.printf(
          "ingest %s: %,d events in %.1f s, %,.0f events/s%n",
          label, events, seconds, ingest.eventsPerSecond());
      return ingest;
    }
  }

  /** Clients asking for the as-of reads back to back, all the while they run. */
  private static final class Readers {
    private final Map<String, String> endpoints;
    private final String token;
    private final int clients;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Map<String, List<Long>> micros = new ConcurrentHashMap<>();
    private final List<Thread> threads = new ArrayList<>();

    Readers(Map<String, String> endpoints, String token, int clients) {
      this.endpoints = endpoints;
      this.token = token;
      this.clients = clients;
    }

    void start() {
      threads.addAll(
          clients(
              endpoints,
              token,
              clients,
              new FleetApiBench.Recorder(
                  running,
                  new AtomicBoolean(true),
                  micros,
                  new AtomicLongArray(endpoints.size()))));
    }

    /** Stops the readers; the latencies they saw, per endpoint. */
    Map<String, Percentiles> stop() throws InterruptedException {
      running.set(false);
      for (Thread thread : threads) {
        thread.join(BOUND.toMillis());
      }
      Map<String, Percentiles> figures = new LinkedHashMap<>();
      endpoints.keySet().forEach(label -> figures.put(label, percentiles(micros, label)));
      return figures;
    }
  }

  /** {@code clients} threads asking for every endpoint in turn, back to back. */
  private static List<Thread> clients(
      Map<String, String> endpoints, String token, int clients, FleetApiBench.Recorder recorder) {
    return FleetApiBench.startClients(
        endpoints, token, new FleetApiBench.Pace(0, 0), clients, recorder);
  }

  /**
   * The probers ask for every endpoint in turn, back to back: a warm-up not recorded, then until
   * each endpoint has {@code probes} answers.
   */
  private static List<Measured> probe(
      Map<String, String> endpoints, String token, Settings settings, int probes) throws Exception {
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicBoolean recording = new AtomicBoolean(false);
    Map<String, List<Long>> micros = new ConcurrentHashMap<>();
    AtomicLongArray bytes = new AtomicLongArray(endpoints.size());
    List<Thread> threads =
        clients(
            endpoints,
            token,
            settings.probers(),
            new FleetApiBench.Recorder(running, recording, micros, bytes));
    Thread.sleep(Duration.ofSeconds(settings.warmupSeconds()).toMillis()); // warm-up, not recorded
    recording.set(true);
    long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
    while (endpoints.keySet().stream().anyMatch(label -> count(micros, label) < probes)) {
      if (!running.get()) {
        throw new IllegalStateException("a prober failed: see its stack trace above");
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "fewer than %,d answers per endpoint within 30 minutes".formatted(probes));
      }
      Thread.sleep(100); // polling the probe count, bounded by the deadline above
    }
    running.set(false);
    for (Thread thread : threads) {
      thread.join(BOUND.toMillis());
    }
    List<Measured> measured = new ArrayList<>();
    int index = 0;
    for (String label : endpoints.keySet()) {
      measured.add(new Measured(label, percentiles(micros, label), bytes.get(index++)));
    }
    return measured;
  }

  private static int count(Map<String, List<Long>> micros, String label) {
    return micros.getOrDefault(label, List.of()).size();
  }

  private static Percentiles percentiles(Map<String, List<Long>> micros, String label) {
    List<Long> samples = micros.getOrDefault(label, Collections.emptyList());
    synchronized (samples) {
      return Percentiles.of(samples.stream().mapToLong(Long::longValue).toArray());
    }
  }

  private static BenchConditions conditions(Connection db, Settings settings, Instant moment)
      throws Exception {
    long history = FleetApiBench.scalar(db, "SELECT count(*) FROM node_events");
    String sizes =
        "%,d nodes x 8 GPUs; node history %,d rows (node_events), T = %s"
            .formatted(settings.nodes(), history, moment);
    String ingest =
        "a backlog of %,d events four times: alone, with %d as-of readers, with as many readers of now, alone"
            .formatted(settings.backlog(), settings.clients());
    String latency =
        "%d probers back to back under %,d events/s; %d s warm-up, then %,d answers per page, %,d"
                .formatted(
                    settings.probers(),
                    settings.eventsPerSecond(),
                    settings.warmupSeconds(),
                    settings.probes(),
                    settings.summaryProbes())
            + " per summary";
    return BenchConditions.of(BenchKeys.describe(), db)
        .with("sizes", sizes)
        .with("ingest", ingest)
        .with("latency", latency);
  }

  private static String format(
      Settings settings,
      Instant moment,
      String conditions,
      List<Ingest> ingest,
      Map<String, Percentiles> duringIngest,
      String ingestDuringProbes,
      String loadBefore,
      List<Measured> pages,
      List<Measured> summaries) {
    StringBuilder text =
        new StringBuilder(
            "As-of reads at %,d nodes (8 GPUs each), T = %s%n".formatted(settings.nodes(), moment));
    text.append(conditions);
    text.append("  ingest (a backlog of %,d signed events):%n".formatted(settings.backlog()));
    for (Ingest phase : ingest) {
      text.append(
          "    %-18s %,8.0f events/s  (load average %s)%n"
              .formatted(phase.label(), phase.eventsPerSecond(), phase.load()));
    }
    double alone = (ingest.get(0).eventsPerSecond() + ingest.get(3).eventsPerSecond()) / 2;
    text.append(
        "    ratio with as-of reads / alone (mean of both): %.2f; with reads of now / alone: %.2f;"
                .formatted(
                    ingest.get(1).eventsPerSecond() / alone,
                    ingest.get(2).eventsPerSecond() / alone)
            + " with as-of reads / with reads of now: %.2f%n"
                .formatted(ingest.get(1).eventsPerSecond() / ingest.get(2).eventsPerSecond()));
    duringIngest.forEach(
        (label, latency) -> text.append("    the readers' %-14s %s%n".formatted(label, latency)));
    text.append(
        "  latency (load average %s -> %s; ingest %s):%n"
            .formatted(loadBefore, BenchConditions.loadAverage(), ingestDuringProbes));
    for (Measured measured : pages) {
      text.append(line(measured));
    }
    text.append(ratios("page of 500 nodes", pages.get(2), pages.get(1)));
    for (Measured measured : summaries) {
      text.append(line(measured));
    }
    text.append(ratios("fleet summary", summaries.get(1), summaries.get(0)));
    return text.toString();
  }

  private static String line(Measured measured) {
    return "    %-40s %-46s %,10d bytes%n"
        .formatted(measured.label(), measured.latency(), measured.bytes());
  }

  private static String ratios(String what, Measured asOf, Measured now) {
    return "    %s as of T / now: p99 %.2f, p50 %.2f%n"
        .formatted(
            what,
            asOf.latency().p99Ms() / now.latency().p99Ms(),
            asOf.latency().p50Ms() / now.latency().p50Ms());
  }
}
