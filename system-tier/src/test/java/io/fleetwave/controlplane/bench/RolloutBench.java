package io.fleetwave.controlplane.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.RolloutApi;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.embedded.FleetTopics;
import io.fleetwave.events.security.CommandSigner;
import io.fleetwave.simulator.FleetMain;
import io.fleetwave.systemtier.FleetProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Issue 5's benchmark: prints figures, asserts nothing.
 *
 * <p>The packaged control plane runs with a generated fleet of {@code bench.rolloutNodes} simulated
 * MIG-capable nodes (one H100 each, four zones, label pool=bench), each taking {@code
 * bench.applyMillis} to start converging a new spec. One MIG rollout (waves 1, 10%, 50%, 100%;
 * maxUnavailable 10%; no soak) runs to completion through the API. Printed:
 *
 * <ol>
 *   <li>Total rollout time (first NodeStarted to RolloutCompleted) against the ideal: the sum over
 *       the plan's waves of ceil(wave size / maxUnavailable nodes) x apply time + soak.
 *   <li>Completion to the start it frees: every sliding start is paired with the completion that
 *       freed its slot ({@link FreedStarts}, from the rollout's own log), and the delay is taken
 *       from that completion's SpecApplied record to the freed node's spec record on the desired
 *       topic (and to its NodeStarted event). Baseline: a bare Kafka produce-to-consume round trip
 *       on the same broker during the run.
 * </ol>
 *
 * <p>Each report starts with the settings it ran with ({@link BenchConditions}).
 *
 * <p>Run: {@code ./mvnw -pl system-tier -am verify -DskipTests -Dbench.rollout=true}.
 */
public final class RolloutBench {
  private RolloutBench() {}

  public static void main(String[] args) throws Exception {
    Settings settings = Settings.fromSystemProperties();
    Path out = Path.of("target", "bench").toAbsolutePath();
    Files.createDirectories(out);
    System.out.println("Fleetwave rollout benchmark: " + settings);
    List<String> overheads = new ArrayList<>();
    StringBuilder reports = new StringBuilder();
    for (int nodes : settings.sizes()) {
      Measured measured = runAtSize(settings, nodes, out);
      reports.append(measured.report()).append(System.lineSeparator());
      Files.writeString(out.resolve("rollout-bench.txt"), reports);
      overheads.add(measured.overheadLine(nodes));
    }
    if (settings.sizes().size() > 1) {
      String scaling =
          """
          Engine overhead by fleet size (same run; overhead = total - ideal at the measured apply time)
            nodes     total s   ideal s   ratio   overhead s   overhead per node ms
          %s"""
              .formatted(String.join(System.lineSeparator(), overheads));
      System.out.println(scaling);
      reports.append(scaling).append(System.lineSeparator());
      Files.writeString(out.resolve("rollout-bench.txt"), reports);
    }
  }

  /**
   * One size: fresh Kafka, PostgreSQL and control plane (no simulated agents of its own), and the
   * agents in their own process ({@link FleetMain}: following specs signed with the control plane's
   * key, verified with its public half), so the figures are the control plane's. Node identity is
   * required, as in production: each agent enrolls its key with a join token the bench minted as
   * admin, and signs its events. They all enroll from this host, so the limit per source address is
   * the fleet's size.
   */
  private static Measured runAtSize(Settings settings, int nodes, Path out) throws Exception {
    Path fleetFile = out.resolve("rollout-fleet-" + nodes + ".yaml");
    Files.writeString(fleetFile, fleetYaml(nodes));
    CommandSigner signing = CommandSigner.generate();
    Path publicKey =
        Files.writeString(out.resolve("rollout-public-key.pem"), signing.publicKeyPem());
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedPostgres postgres = EmbeddedPostgres.start()) {
      BenchServices.createTopics(kafka, settings.partitions(), RoundTrip.TOPIC);
      FleetTopics.createControlFacts(kafka);
      // As the other benches' control plane (node identity required), with its signing key.
      Map<String, String> env = BenchServices.controlPlane(kafka, postgres);
      env.put("FLEETWAVE_COMMANDS_PRIVATE_KEY", signing.privateKeyPem());
      long started = System.nanoTime();
      try (Connection db = FleetApiBench.connect(postgres);
          ControlPlaneProcess controlPlane =
              ControlPlaneProcess.start(
                  settings.app(),
                  settings.port(),
                  env,
                  out.resolve("rollout-control-plane-" + nodes + ".log"),
                  settings.heap());
          FleetProcess fleet =
              FleetProcess.start(
                  kafka.bootstrapServers(),
                  fleetFile,
                  publicKey,
                  FleetProcess.Enrolling.with(
                      controlPlane, fleetFile, out.resolve("rollout-join-tokens-" + nodes)),
                  settings.fleetHeap(),
                  settings.heartbeat(),
                  settings.apply(),
                  out.resolve("rollout-fleet-" + nodes + ".log"))) {
        awaitProjected(db, nodes, fleet);
        System.out.printf(
            "%,d nodes projected with their GPUs %.1f s after the control plane started%n",
            nodes, (System.nanoTime() - started) / 1e9);
        BenchConditions conditions =
            BenchConditions.of(
                    "as the simulated fleet publishes them: each node enrolled, signed (node identity"
                        + " required)",
                    db)
                .with(
                    "sizes",
                    "%,d nodes (1 GPU each), apply %d ms, heartbeat %s, %d partitions"
                        .formatted(
                            nodes,
                            settings.apply().toMillis(),
                            settings.heartbeat(),
                            settings.partitions()))
                .with(
                    "warm-up",
                    "the fleet's registrations and inventories through the same broker before"
                        + " the rollout; Kafka round trips every 50 ms throughout, all counted");
        Measured measured =
            run(
                kafka.bootstrapServers(),
                controlPlane.port(),
                controlPlane.token("operator"),
                settings,
                nodes,
                conditions);
        System.out.println(measured.report());
        return measured;
      }
    }
  }

  private static Measured run(
      String bootstrap,
      int port,
      String token,
      Settings settings,
      int nodes,
      BenchConditions conditions)
      throws Exception {
    RolloutApi api = new RolloutApi(port, token);
    AtomicBoolean probing = new AtomicBoolean(true);
    List<JsonNode> events;
    JsonNode plan;
    JsonNode last;
    Map<String, Instant> specSent;
    Map<String, Instant> applied;
    Map<String, Instant> appliedRecorded;
    Map<String, List<Instant>> records;
    Percentiles kafka;
    try (NodeTimeline timeline = new NodeTimeline(bootstrap);
        RoundTrip roundTrip = new RoundTrip(bootstrap);
        KafkaProducer<String, byte[]> producer = EventLoad.producer(bootstrap)) {
      Thread probes =
          Thread.ofPlatform().name("bench-roundtrip-probes").start(() -> probe(producer, probing));
      JsonNode created = api.create(rolloutSpec());
      String id = created.get("id").asText();
      plan = created.get("plan");
      System.out.printf(
          "rollout %s: %d planned nodes, %d excluded, maxUnavailable %d nodes%n",
          id,
          plan.get("plannedNodes").asInt(),
          plan.path("excludedCount").asInt(plan.get("excluded").size()),
          plan.get("maxUnavailableNodes").asInt());
      last = api.awaitFinished(id, settings.rolloutBound(idealMillis(plan, settings)));
      probing.set(false);
      probes.join(10_000);
      events = api.events(id);
      specSent = timeline.specSent();
      applied = timeline.applied();
      appliedRecorded = timeline.appliedRecorded();
      records = timeline.recordedUntilApplied();
      kafka = roundTrip.result();
    }
    return report(
        settings,
        conditions,
        nodes,
        plan,
        last,
        events,
        specSent,
        new Completions(applied, appliedRecorded, records),
        kafka);
  }

  /** One round-trip probe every 50 ms while the rollout runs: the baseline under the same load. */
  private static void probe(KafkaProducer<String, byte[]> producer, AtomicBoolean probing) {
    int key = 0;
    while (probing.get()) {
      RoundTrip.send(producer, key++);
      java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L); // probe pacing
    }
  }

  /** One size's report, and its figures for the table by size. */
  record Measured(String report, double totalMillis, double idealAtMeasuredMillis) {
    String overheadLine(int nodes) {
      if (Double.isNaN(totalMillis)) {
        return "  %,7d   did not complete".formatted(nodes);
      }
      double overhead = totalMillis - idealAtMeasuredMillis;
      return "  %,7d   %7.1f   %7.1f   %5.2f   %10.1f   %20.3f"
          .formatted(
              nodes,
              totalMillis / 1000,
              idealAtMeasuredMillis / 1000,
              totalMillis / idealAtMeasuredMillis,
              overhead / 1000,
              overhead / nodes);
    }
  }

  private static Measured report(
      Settings settings,
      BenchConditions conditions,
      int nodes,
      JsonNode plan,
      JsonNode last,
      List<JsonNode> events,
      Map<String, Instant> specSent,
      Completions completions,
      Percentiles kafka) {
    Map<String, Instant> started = new java.util.HashMap<>();
    Instant firstStart = null;
    Instant completed = null;
    int succeeded = 0;
    int failed = 0;
    for (JsonNode event : events) {
      // Wire types carry a version suffix: io.fleetwave.rollout.node-started.v1
      String type = event.get("type").asText().replaceFirst("\\.v\\d+$", "");
      Instant time = Instant.parse(event.get("time").asText());
      if (type.equals("io.fleetwave.rollout.node-started")) {
        started.putIfAbsent(event.get("data").get("node").asText(), time);
        firstStart = firstStart == null || time.isBefore(firstStart) ? time : firstStart;
      } else if (type.equals("io.fleetwave.rollout.node-succeeded")) {
        succeeded++;
      } else if (type.equals("io.fleetwave.rollout.node-failed")) {
        failed++;
      } else if (type.equals("io.fleetwave.rollout.completed")) {
        completed = time;
      }
    }
    if (completed == null || firstStart == null) {
      return new Measured(
          "rollout did not complete: state %s (%s), %d events, %d succeeded, %d failed%n"
              .formatted(
                  last.path("state").asText(),
                  last.path("progress").path("statusReason").asText(),
                  events.size(),
                  succeeded,
                  failed),
          Double.NaN,
          Double.NaN);
    }
    long idealMillis = idealMillis(plan, settings);
    double totalMillis = Duration.between(firstStart, completed).toNanos() / 1e6;
    List<Long> publishLag = new ArrayList<>();
    List<Long> perNodeApply = new ArrayList<>();
    List<Long> perNodeApplyRecorded = new ArrayList<>();
    for (String node : started.keySet()) {
      Instant done = completions.applied().get(node);
      Instant recorded = completions.recorded().get(node);
      if (recorded != null) {
        if (done != null) {
          publishLag.add(Duration.between(done, recorded).toNanos() / 1000);
        }
        Instant sent = specSent.get(node);
        if (sent != null) {
          perNodeApplyRecorded.add(Duration.between(sent, recorded).toNanos() / 1000);
        }
      }
      if (done != null) {
        Instant sent = specSent.get(node);
        if (sent != null) {
          perNodeApply.add(Duration.between(sent, done).toNanos() / 1000);
        }
      }
    }
    Percentiles applyPercentiles =
        Percentiles.of(perNodeApply.stream().mapToLong(Long::longValue).toArray());
    double idealAtMeasured =
        idealMillis * applyPercentiles.p50Ms() / Math.max(1, settings.apply().toMillis());
    // What the control plane can see of an apply ends at the SpecApplied record, not at its time:
    // the same ideal at the spec -> record p50 leaves the agents' own publishing out of the ratio.
    Percentiles applyToRecord =
        Percentiles.of(perNodeApplyRecorded.stream().mapToLong(Long::longValue).toArray());
    double idealAtRecorded =
        idealMillis * applyToRecord.p50Ms() / Math.max(1, settings.apply().toMillis());
    FreedStarts.Result freed = FreedStarts.of(events, maxUnavailable(plan));
    Percentiles recordToSpec =
        pairDelays(freed, completions.recorded(), specSent); // the headline: both on Kafka
    Percentiles recordToStarted = pairDelays(freed, completions.recorded(), started);
    Percentiles appliedToSpec = pairDelays(freed, completions.applied(), specSent);
    List<Long> startToSpec = new ArrayList<>();
    started.forEach(
        (node, time) -> {
          Instant sent = specSent.get(node);
          if (sent != null) {
            startToSpec.add(Duration.between(time, sent).toNanos() / 1000);
          }
        });
    String report =
        """
        Rollout of %,d simulated nodes (apply time %d ms, heartbeat %s): %s, %d succeeded, %d failed
          waves (nodes)                 %s, maxUnavailable %d nodes, soak %d s
          total rollout time            %,12.1f s  (first NodeStarted -> RolloutCompleted)
          ideal                         %,12.1f s  (sum of ceil(wave / maxUnavailable) x apply + soak)
          ratio total / ideal           %12.2f   (target <= 1.10)
          per-node spec -> SpecApplied  %s
          ideal at that p50 apply time  %,12.1f s  (the same sum, with the measured per-node time)
          ratio total / that ideal      %12.2f   (the engine's own overhead)
          (spec -> SpecApplied record   %s)
          (ideal at that p50            %,12.1f s: the apply as the control plane sees it)
          (ratio total / that ideal     %12.2f: the engine's overhead without the agents' publishing)
        Sliding starts, each paired with the completion that freed its slot (%,d pairs, %d starts
        past the window with no completion before them; %d wave starts filled %s)
          completion's SpecApplied record -> freed node's spec record
                                        %s   (record timestamps: ms resolution)
          that record -> freed node's NodeStarted event
                                        %s
          completion's SpecApplied time -> freed node's spec record
                                        %s   (includes the agent's own publish delay)
          (NodeStarted -> spec record   %s)
          (SpecApplied time -> record   %s: the agents' own publish delay)
          (an apply's records           %s: spec record -> SpecApplied record)
          wave starts, first -> last spec record of the window's fill: %s
          bare Kafka round trip         %s
          ratio p99 record->spec / p99 Kafka %8.2f   (target <= 3)
        %s"""
            .formatted(
                nodes,
                settings.apply().toMillis(),
                settings.heartbeat(),
                last.path("state").asText(),
                succeeded,
                failed,
                waveSizes(plan),
                maxUnavailable(plan),
                plan.path("strategy").path("soakSeconds").asInt(),
                totalMillis / 1000,
                idealMillis / 1000.0,
                totalMillis / idealMillis,
                applyPercentiles,
                idealAtMeasured / 1000.0,
                totalMillis / idealAtMeasured,
                applyToRecord,
                idealAtRecorded / 1000.0,
                totalMillis / idealAtRecorded,
                freed.pairs().size(),
                freed.unpaired(),
                freed.fills().size(),
                "%d-%d nodes each"
                    .formatted(
                        freed.fills().values().stream().mapToInt(List::size).min().orElse(0),
                        freed.fills().values().stream().mapToInt(List::size).max().orElse(0)),
                recordToSpec,
                recordToStarted,
                appliedToSpec,
                Percentiles.of(startToSpec.stream().mapToLong(Long::longValue).toArray()),
                Percentiles.of(publishLag.stream().mapToLong(Long::longValue).toArray()),
                applyRecords(specSent, completions),
                fillSpreads(freed, specSent),
                kafka,
                recordToSpec.p99Ms() / kafka.p99Ms(),
                conditions.text());
    return new Measured(report, totalMillis, idealAtMeasured);
  }

  /**
   * When each node completed: its SpecApplied event's own time (the agent's clock when it finished)
   * and its record's Kafka timestamp (when the agent handed the record to its producer). The
   * simulated agents of a 1,000-node fleet hand it over about a second after its time, which the
   * first alone showed as the engine's delay (BENCH.md, rollout eighth pass).
   */
  private record Completions(
      Map<String, Instant> applied,
      Map<String, Instant> recorded,
      Map<String, List<Instant>> records) {}

  /**
   * What a node sent for its apply, from its spec record to its SpecApplied record: how many events
   * (SpecApplied included), and the mean gap between consecutive ones. An agent keeps one event in
   * flight, so each gap is at least one Kafka round trip, and an apply whose steps run at once (the
   * simulated ones do) hands its SpecApplied over that many round trips after its time.
   */
  private static String applyRecords(Map<String, Instant> specSent, Completions completions) {
    List<Long> counts = new ArrayList<>();
    List<Long> gaps = new ArrayList<>();
    completions
        .records()
        .forEach(
            (node, times) -> {
              Instant sent = specSent.get(node);
              if (sent == null || !completions.recorded().containsKey(node)) {
                return;
              }
              List<Instant> apply = times.stream().filter(t -> !t.isBefore(sent)).toList();
              counts.add((long) apply.size());
              if (apply.size() > 1) {
                long span = Duration.between(apply.getFirst(), apply.getLast()).toNanos() / 1000;
                gaps.add(span / (apply.size() - 1));
              }
            });
    long[] sorted = counts.stream().mapToLong(Long::longValue).sorted().toArray();
    if (sorted.length == 0) {
      return "no node's apply seen";
    }
    return "p50 %d, p99 %d events (n=%d), sent %s apart"
        .formatted(
            sorted[sorted.length / 2],
            sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)],
            sorted.length,
            Percentiles.of(gaps.stream().mapToLong(Long::longValue).toArray()));
  }

  /**
   * For every pair whose two moments are known: from the completion's moment in {@code completed}
   * to the freed node's moment in {@code freedAt}.
   */
  private static Percentiles pairDelays(
      FreedStarts.Result freed, Map<String, Instant> completed, Map<String, Instant> freedAt) {
    List<Long> micros = new ArrayList<>();
    for (FreedStarts.Pair pair : freed.pairs()) {
      Instant from = completed.get(pair.completed());
      Instant to = freedAt.get(pair.freed());
      if (from != null && to != null) {
        micros.add(Duration.between(from, to).toNanos() / 1000);
      }
    }
    return Percentiles.of(micros.stream().mapToLong(Long::longValue).toArray());
  }

  /** Per wave: how long its window's fill took to send, first to last spec record. */
  private static String fillSpreads(FreedStarts.Result freed, Map<String, Instant> specSent) {
    List<String> spreads = new ArrayList<>();
    freed
        .fills()
        .forEach(
            (wave, nodes) -> {
              List<Instant> sent =
                  nodes.stream().map(specSent::get).filter(t -> t != null).toList();
              if (!sent.isEmpty()) {
                Instant first = sent.stream().min(Comparator.naturalOrder()).orElseThrow();
                Instant last = sent.stream().max(Comparator.naturalOrder()).orElseThrow();
                spreads.add(
                    "%s %d specs in %d ms"
                        .formatted(wave, sent.size(), Duration.between(first, last).toMillis()));
              }
            });
    return String.join("; ", spreads);
  }

  /** Nodes per wave of the plan as the API shows it: complete, or cut with a count per wave. */
  static List<Integer> waveSizes(JsonNode plan) {
    List<Integer> sizes = new ArrayList<>();
    for (JsonNode wave : plan.get("waves")) {
      int size = 0;
      if (wave.has("nodeCount")) {
        size = wave.get("nodeCount").asInt();
      } else {
        for (JsonNode batch : wave.get("batches")) {
          size += batch.get("nodes").size();
        }
      }
      sizes.add(size);
    }
    return sizes;
  }

  private static int maxUnavailable(JsonNode plan) {
    return Math.max(1, plan.get("maxUnavailableNodes").asInt());
  }

  /** Sum over the plan's waves of ceil(wave size / maxUnavailable) x apply time + soak. */
  static long idealMillis(JsonNode plan, Settings settings) {
    long soakMillis = plan.path("strategy").path("soakSeconds").asLong() * 1000;
    int max = maxUnavailable(plan);
    long total = 0;
    for (int size : waveSizes(plan)) {
      total += Math.ceilDiv(size, max) * settings.apply().toMillis() + soakMillis;
    }
    return total;
  }

  private static String rolloutSpec() {
    return """
        {"name": "rollout-bench", "target": {"selector": "pool=bench"},
         "change": {"migConfig": "all-1g.10gb"},
         "strategy": {"waves": ["1", "10%", "50%", "100%"], "maxUnavailable": "10%",
                      "soakSeconds": 0,
                      "failureThreshold": {"perWave": "100%", "total": "100%", "action": "pause"},
                      "manualPromotion": false, "nodeTimeoutSeconds": 900}}
        """;
  }

  /** Four zones of MIG-capable nodes, one H100 each, all labelled pool=bench. */
  static String fleetYaml(int nodes) {
    StringBuilder yaml = new StringBuilder("nodes:\n");
    String[] zones = {"a", "b", "c", "d"};
    for (int z = 0; z < zones.length; z++) {
      int count = nodes / zones.length + (z < nodes % zones.length ? 1 : 0);
      if (count == 0) {
        continue;
      }
      yaml.append(
          """
            - name-prefix: bench-%s
              count: %d
              host: ubuntu
              zone: zone-%s
              labels: {pool: bench}
              driver-version: "580.95.05"
              gpus:
                - model: "0x233010DE"
                  count: 1
          """
              .formatted(zones[z], count, zones[z]));
    }
    return yaml.toString();
  }

  private static void awaitProjected(Connection db, int nodes, FleetProcess fleet)
      throws Exception {
    Duration bound = Duration.ofMinutes(15);
    long deadline = System.nanoTime() + bound.toNanos();
    long seen = 0;
    while (seen < nodes) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "only %,d of %,d nodes projected with GPUs within %s".formatted(seen, nodes, bound));
      }
      fleet.requireAlive();
      Thread.sleep(500); // polling interval of a bounded wait
      try (Statement s = db.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(DISTINCT node) FROM gpus")) {
        rs.next();
        seen = rs.getLong(1);
      } catch (java.sql.SQLException notYet) {
        // Flyway has not created the table yet.
      }
    }
  }

  /** Benchmark sizes, from {@code -Dbench.*} system properties. */
  record Settings(
      List<Integer> sizes,
      Duration apply,
      Duration heartbeat,
      int partitions,
      String heap,
      String fleetHeap,
      Path app,
      int port) {
    static Settings fromSystemProperties() {
      return new Settings(
          sizes(System.getProperty("bench.rolloutNodes", "10000")),
          Duration.ofMillis(Long.getLong("bench.applyMillis", 2_000)),
          Duration.ofSeconds(Long.getLong("bench.heartbeatSeconds", 60)),
          Integer.getInteger("bench.partitions", 8),
          System.getProperty("bench.controlPlaneHeap", "3g"),
          System.getProperty("bench.fleetHeap", "2g"),
          Path.of(System.getProperty("bench.app", "../control-plane/target/quarkus-app")),
          Integer.getInteger("bench.port", 18081));
    }

    /** 10000, or several sizes run one after the other: 1000,5000,10000. */
    static List<Integer> sizes(String value) {
      List<Integer> sizes = new ArrayList<>();
      for (String size : value.split(",", -1)) {
        try {
          sizes.add(Integer.parseInt(size.strip().replace("_", "")));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              "bench.rolloutNodes: '"
                  + value
                  + "' is not a node count or a list (1000,5000,10000)");
        }
      }
      if (sizes.stream().anyMatch(n -> n < 1)) {
        throw new IllegalArgumentException("bench.rolloutNodes: every size must be at least 1");
      }
      return List.copyOf(sizes);
    }

    /** Generous: twenty times the ideal, at least ten minutes. */
    Duration rolloutBound(long idealMillis) {
      return Duration.ofMillis(Math.max(Duration.ofMinutes(10).toMillis(), 20 * idealMillis));
    }
  }
}
