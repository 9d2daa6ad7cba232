package io.fleetwave.controlplane.bench;

import io.fleetwave.controlplane.api.CoreJson;
import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.controlplane.fixtures.MigratedDatabase;
import io.fleetwave.controlplane.fixtures.ProjectedRollouts;
import io.fleetwave.controlplane.fixtures.ProjectedRollouts.LoggedEvent;
import io.fleetwave.controlplane.rollout.store.RolloutRows.NodeState;
import io.fleetwave.core.rollout.plan.LargeFleetPlans;
import io.vertx.mutiny.sqlclient.Pool;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issues 13/14's large-rollout API benchmark: prints figures, asserts nothing.
 *
 * <p>The packaged control plane serves one running rollout of {@code bench.rolloutApiNodes} nodes
 * (default 10,000; its plan from the real planner, one H100 per node, waves 1 and 100%), written
 * into the projection as the engine writes it: 10% of the nodes finished (1 in 100 of them failed),
 * two node events each in the log. While it measures, a writer stands in for the engine (its own
 * rollout engine is off, so it leaves the seeded rollout alone): every 100 ms it moves {@code
 * bench.rolloutApiStepNodes} nodes from pending to in flight and the previous ones to succeeded,
 * with their events, in one transaction, as the engine's projection does.
 *
 * <p>Each endpoint is called {@code bench.rolloutApiCalls} times ({@code
 * bench.rolloutApiFullViewCalls} for the full view, 500 by default) after a warm-up, one call at a
 * time, and timed from request to the last byte: the full view GET /api/v1/rollouts/{id} (the old
 * and only way to see progress, the baseline), its summary, a page of 500 of its nodes, the failed
 * nodes, and the listing of running rollouts. Printed: p50/p99/max and bytes of each, and the
 * ratios against the full view of the same run.
 *
 * <p>Run: {@code ./mvnw -pl control-plane -am verify -DskipTests -Dbench.rolloutApi=true}.
 */
public final class RolloutApiBench {
  private static final Duration BOUND = Duration.ofMinutes(2);

  private RolloutApiBench() {}

  record Settings(int nodes, int calls, int fullViewCalls, int stepNodes, Path app, int port) {
    static Settings fromSystemProperties() {
      return new Settings(
          Integer.getInteger("bench.rolloutApiNodes", 10_000),
          Integer.getInteger("bench.rolloutApiCalls", 500),
          Integer.getInteger("bench.rolloutApiFullViewCalls", 500),
          Integer.getInteger("bench.rolloutApiStepNodes", 20),
          BenchServices.app(),
          BenchServices.port());
    }
  }

  public static void main(String[] args) throws Exception {
    Settings settings = Settings.fromSystemProperties();
    Path out = BenchServices.output();
    System.out.println("Fleetwave large-rollout API benchmark: " + settings);
    SeededApiStack.run(
        settings.app(),
        settings.port(),
        out.resolve("rollout-api-control-plane.log"),
        stack -> {
          try (Connection db = FleetApiBench.connect(stack.postgres())) {
            Pool pool = MigratedDatabase.pool(stack.postgres(), stack.vertx());
            long seeding = System.nanoTime();
            UUID id = seed(pool, settings.nodes());
            pool.closeAndAwait();
            try (var analyze = db.createStatement()) {
              analyze.execute("ANALYZE");
            }
            System.out.printf(
                "seeded a running rollout of %,d nodes in %.1f s%n",
                settings.nodes(), (System.nanoTime() - seeding) / 1e9);
            String report = measure(db, stack.controlPlane(), id, settings);
            System.out.println(report);
            Files.writeString(out.resolve("rollout-api-bench.txt"), report);
          }
        });
  }

  private static UUID seed(Pool pool, int nodes) throws Exception {
    return seed(pool, "bench", nodes);
  }

  /**
   * A running rollout of {@code nodes} nodes named {@code prefix-NNNNNN}, 10% finished: also the
   * fleet API bench's rollout.
   */
  static UUID seed(Pool pool, String prefix, int nodes) throws Exception {
    String spec = CoreJson.mapper().writeValueAsString(LargeFleetPlans.spec(prefix));
    var plan = LargeFleetPlans.plan(prefix, nodes, 1);
    Instant t0 = Instant.now().minus(Duration.ofHours(1));
    List<NodeState> seeded = new ArrayList<>();
    List<LoggedEvent> events = new ArrayList<>();
    events.add(new LoggedEvent("io.fleetwave.rollout.wave-started.v1", t0, "{\"wave\": 1}"));
    int wave = 0;
    int index = 0;
    for (var planned : plan.waves()) {
      wave++;
      if (wave == 2) {
        events.add(
            new LoggedEvent(
                "io.fleetwave.rollout.wave-started.v1", t0.plusSeconds(60), "{\"wave\": 2}"));
      }
      {
        for (var node : planned.nodes()) {
          boolean finished = index < nodes / 10;
          Instant started = t0.plusSeconds(index);
          if (finished) {
            boolean failed = index % 100 == 99;
            seeded.add(
                new NodeState(
                    node.node(),
                    wave,
                    "forward",
                    failed ? "failed" : "succeeded",
                    2L,
                    failed ? "GPU 0 did not come back healthy after the reset" : null,
                    started,
                    started.plusSeconds(20)));
            events.add(nodeEvent("node-started.v1", started, node.node()));
            events.add(
                nodeEvent(
                    failed ? "node-failed.v2" : "node-succeeded.v1",
                    started.plusSeconds(20),
                    node.node()));
          } else {
            seeded.add(ProjectedRollouts.pending(node.node(), wave));
          }
          index++;
        }
      }
    }
    return ProjectedRollouts.insert(
        pool, prefix, "running", spec, plan, CoreJson.mapper(), seeded, true, events);
  }

  private static LoggedEvent nodeEvent(String type, Instant time, String node) {
    return new LoggedEvent(
        "io.fleetwave.rollout." + type, time, "{\"node\": \"" + node + "\", \"generation\": 2}");
  }

  private static String measure(
      Connection db, ControlPlaneProcess controlPlane, UUID id, Settings settings)
      throws Exception {
    // Read before the writer thread takes the connection over.
    BenchConditions conditions =
        BenchConditions.of(
                "none published (the rollout is seeded into the tables); node identity required",
                db)
            .with(
                "sizes",
                "one running rollout of %,d nodes; %,d calls per endpoint, %,d of the full view"
                    .formatted(settings.nodes(), settings.calls(), settings.fullViewCalls()))
            .with("warm-up", "a tenth of each endpoint's calls (at least 5) before, not counted")
            .with(
                "load",
                "a stand-in engine writes %d node state changes every 100 ms; one client"
                    .formatted(settings.stepNodes()));
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://localhost:" + controlPlane.port() + "/api/v1/rollouts";
    String token = controlPlane.token("viewer");
    Map<String, String> endpoints = new LinkedHashMap<>();
    endpoints.put("full view  GET /rollouts/{id}", base + "/" + id);
    endpoints.put("summary    GET /rollouts/{id}/summary", base + "/" + id + "/summary");
    endpoints.put(
        "nodes      GET /rollouts/{id}/nodes?size=500", base + "/" + id + "/nodes?size=500");
    endpoints.put(
        "failed     GET /rollouts/{id}/nodes?state=failed&size=500",
        base + "/" + id + "/nodes?state=failed&size=500");
    endpoints.put("listing    GET /rollouts?state=running", base + "?state=running");

    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicLong written = new AtomicLong();
    Thread writer =
        Thread.ofPlatform()
            .name("bench-engine-writer")
            .start(() -> advance(db, id, settings.stepNodes(), writing, written));
    List<Measured> results = new ArrayList<>();
    long started = System.nanoTime();
    try {
      for (Map.Entry<String, String> endpoint : endpoints.entrySet()) {
        boolean full = endpoint.getKey().startsWith("full");
        int calls = full ? settings.fullViewCalls() : settings.calls();
        results.add(time(http, token, endpoint.getKey(), endpoint.getValue(), calls));
      }
    } finally {
      writing.set(false);
      writer.join(BOUND.toMillis());
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    Measured baseline = results.getFirst();
    StringBuilder report = new StringBuilder();
    report.append(
        ("Rollout API, one running rollout of %,d nodes (plan included in the full view), %,d"
                + " node state changes written meanwhile (%.0f/s)%n")
            .formatted(settings.nodes(), written.get(), written.get() / seconds));
    report.append(conditions.text());
    for (Measured measured : results) {
      report.append(
          "  %-58s %s, %,11d bytes%n"
              .formatted(measured.label(), measured.latency(), measured.bytes()));
    }
    for (Measured measured : results.subList(1, results.size())) {
      String name = measured.label().substring(0, measured.label().indexOf(' '));
      report.append(
          "  ratio p99 %-8s / p99 full view %8.4f   ratio bytes %-8s / bytes full view %8.5f%n"
              .formatted(
                  name,
                  measured.latency().p99Ms() / baseline.latency().p99Ms(),
                  name,
                  (double) measured.bytes() / baseline.bytes()));
    }
    return report.toString();
  }

  private static Measured time(HttpClient http, String token, String label, String url, int calls)
      throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(BOUND)
            .header("Authorization", "Bearer " + token)
            .build();
    int warmUp = Math.max(5, calls / 10);
    long bytes = 0;
    long[] micros = new long[calls];
    for (int i = -warmUp; i < calls; i++) {
      long begin = System.nanoTime();
      HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      long took = (System.nanoTime() - begin) / 1000;
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "GET "
                + url
                + " answered "
                + response.statusCode()
                + ": "
                + new String(response.body(), java.nio.charset.StandardCharsets.UTF_8));
      }
      if (i >= 0) {
        micros[i] = took;
        bytes = Math.max(bytes, response.body().length);
      }
    }
    return new Measured(label, Percentiles.of(micros), bytes);
  }

  /**
   * What the engine's projection writes while nodes progress: the previous step's nodes succeed,
   * the next pending ones start, their events are logged and the rollout's seq moves on, in one
   * transaction every 100 ms.
   */
  static void advance(Connection db, UUID id, int step, AtomicBoolean writing, AtomicLong written) {
    try (PreparedStatement succeed =
            db.prepareStatement(
                "UPDATE rollout_node_states SET state = 'succeeded', finished_at = now() WHERE"
                    + " rollout = ? AND state = 'in-flight'");
        PreparedStatement start =
            db.prepareStatement(
                "UPDATE rollout_node_states SET state = 'in-flight', generation = 2, started_at ="
                    + " now() WHERE rollout = ? AND node IN (SELECT node FROM rollout_node_states"
                    + " WHERE rollout = ? AND state = 'pending' ORDER BY wave, node LIMIT ?)");
        PreparedStatement log =
            db.prepareStatement(
                "INSERT INTO rollout_event_log (rollout, seq, event_type, event_time, data) SELECT"
                    + " ?, r.last_seq + g, 'io.fleetwave.rollout.node-started.v1', now(),"
                    + " '{\"node\": \"x\"}'::jsonb FROM rollouts r, generate_series(1, ?) g WHERE"
                    + " r.id = ?");
        PreparedStatement seq =
            db.prepareStatement(
                "UPDATE rollouts SET last_seq = last_seq + ?, updated_at = now() WHERE id = ?")) {
      db.setAutoCommit(false);
      while (writing.get()) {
        long begin = System.nanoTime();
        succeed.setObject(1, id);
        int changed = succeed.executeUpdate();
        start.setObject(1, id);
        start.setObject(2, id);
        start.setInt(3, step);
        changed += start.executeUpdate();
        log.setObject(1, id);
        log.setInt(2, changed);
        log.setObject(3, id);
        log.executeUpdate();
        seq.setInt(1, changed);
        seq.setObject(2, id);
        seq.executeUpdate();
        db.commit();
        written.addAndGet(changed);
        long rest = 100 - (System.nanoTime() - begin) / 1_000_000;
        if (rest > 0) {
          Thread.sleep(rest); // the engine's pace: one projection write every 100 ms
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("the stand-in engine writer failed", e);
    }
  }
}
