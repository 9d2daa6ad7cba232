package io.fleetwave.controlplane.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.events.codec.EventCodec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Publish-to-visible delay. A background thread sends the fleet's events round-robin over every
 * node but the probe nodes at a fixed rate; {@code bench.probers} probers (4) each send a heartbeat
 * with a unique time to one of their own probe nodes and poll the API until the node's lastSeen
 * shows it, one probe every 100 ms each, until {@code bench.probes} (2,000) probes are counted:
 * enough for a p99 that is not the second-worst call. A bare Kafka round trip runs beside each
 * probe. Before any is counted, {@code bench.latencyWarmupSeconds} (20) of the same load, probes
 * and round trips warm the broker, the control plane and the bench's own clients: a cold broker's
 * round trip was 4x its warm one (control-plane/BENCH.md, sixth pass), which made the ratio look
 * better than it is.
 */
final class LatencyProbe {
  private static final Duration PROBE_BOUND = Duration.ofSeconds(10);
  private static final Duration PROBE_EVERY = Duration.ofMillis(100);
  // -Dbench.probePollMillis: how often a probe asks the API (1 ms by default). Each ask is a
  // request with a bearer token (an RSA check): at 1 ms a prober is up to 1,000 requests a second
  // on the machine it measures.
  private static final long POLL_MILLIS = Long.getLong("bench.probePollMillis", 1);

  /**
   * The probes counted, and what the broker's round trip was at the end of the warm-up (so that a
   * reader sees it had settled).
   */
  record Result(
      Percentiles api, Percentiles kafka, Percentiles kafkaWarmUp, int timeouts, String tail) {}

  /**
   * Where one probe's delay went, in microseconds from its send: Kafka acknowledged the record
   * ({@code acked}; -1 if it never did), the API request that showed it started ({@code
   * shownAsked}) and answered ({@code shown}); {@code longestMiss} is the longest request before it
   * that did not show it yet. The event was in the replica's in-memory view (since 2026-12-07; in
   * PostgreSQL before) by {@code shownAsked} and not yet when the last miss read, so the
   * projection's share (the view's, now) is at most {@code shownAsked - acked}; the request's own
   * time and the polling add the rest. {@code sentAt}: when it was sent, in milliseconds since the
   * counted probes began (to find it in a profile of the same run).
   */
  record Probe(long acked, long shownAsked, long shown, long longestMiss, long sentAt) {}

  private LatencyProbe() {}

  static Result run(
      String bootstrap,
      int port,
      String token,
      ProjectionBench.BenchSettings settings,
      BenchKeys keys)
      throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    AtomicLongArray nextSeq = new AtomicLongArray(settings.nodes());
    for (int node = 0; node < settings.nodes(); node++) {
      nextSeq.set(node, settings.eventsPerNode());
    }
    AtomicBoolean loading = new AtomicBoolean(true);
    List<Probe> probes = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicInteger timeouts = new AtomicInteger();
    AtomicInteger roundTrips = new AtomicInteger();
    int probers = Math.min(settings.probers(), settings.probeNodes());
    int perProber = Math.ceilDiv(settings.probes(), probers);
    try (KafkaProducer<String, byte[]> producer = EventLoad.producer(bootstrap);
        RoundTrip roundTrip = new RoundTrip(bootstrap)) {
      Thread load =
          Thread.ofPlatform()
              .name("bench-heartbeats")
              .start(() -> heartbeats(producer, nextSeq, loading, settings, keys));
      long counted = System.nanoTime() + settings.latencyWarmUp().toNanos();
      CountDownLatch warm = new CountDownLatch(probers);
      CountDownLatch counting = new CountDownLatch(1);
      List<Thread> threads = new ArrayList<>();
      for (int p = 0; p < probers; p++) {
        int prober = p;
        threads.add(
            Thread.ofPlatform()
                .name("bench-prober-" + p)
                .start(
                    () -> {
                      try {
                        Prober probing =
                            new Prober(
                                http, port, token, producer, keys, nextSeq, roundTrips, counted);
                        probing.warmUp(prober, probers, settings.probeNodes());
                        warm.countDown();
                        counting.await();
                        probing.count(
                            prober, probers, settings.probeNodes(), perProber, probes, timeouts);
                      } catch (Exception e) {
                        throw new IllegalStateException("prober " + prober + " failed", e);
                      }
                    }));
      }
      warm.await();
      Percentiles warmUpRoundTrips = roundTrip.result();
      roundTrip.clear(); // counted from here: the broker has been under this load for the warm-up
      counting.countDown();
      for (Thread thread : threads) {
        thread.join();
      }
      loading.set(false);
      EventLoad.awaitQuietly(load);
      return new Result(
          Percentiles.of(probes.stream().mapToLong(Probe::shown).toArray()),
          roundTrip.result(),
          warmUpRoundTrips,
          timeouts.get(),
          tail(probes));
    }
  }

  /** One prober: its own probe nodes ({@code node % probers == prober}), one probe at a time. */
  private record Prober(
      HttpClient http,
      int port,
      String token,
      KafkaProducer<String, byte[]> producer,
      BenchKeys keys,
      AtomicLongArray nextSeq, // shared; each prober moves only its own probe nodes' seqs
      AtomicInteger roundTrips,
      long countedFrom) {
    /** Probes under the load, not counted, until the warm-up ends. */
    void warmUp(int prober, int probers, int probeNodes) throws Exception {
      for (int i = 0; System.nanoTime() < countedFrom; i++) {
        long started = System.nanoTime();
        RoundTrip.send(producer, roundTrips.getAndIncrement());
        probeOnce(node(prober, probers, probeNodes, i), started);
        pace(started);
      }
    }

    /** {@code count} probes, each beside a round trip. */
    void count(
        int prober,
        int probers,
        int probeNodes,
        int count,
        List<Probe> probes,
        AtomicInteger timeouts)
        throws Exception {
      for (int i = 0; i < count; i++) {
        long started = System.nanoTime();
        RoundTrip.send(producer, roundTrips.getAndIncrement());
        Probe shown = probeOnce(node(prober, probers, probeNodes, i), started);
        if (shown == null) {
          timeouts.incrementAndGet();
        } else {
          probes.add(shown);
        }
        pace(started);
      }
    }

    private Probe probeOnce(int node, long started) throws IOException, InterruptedException {
      return LatencyProbe.probeOnce(
          http,
          port,
          token,
          producer,
          keys,
          node,
          nextSeq.getAndIncrement(node),
          started - countedFrom);
    }

    private static int node(int prober, int probers, int probeNodes, int i) {
      int own = Math.max(1, (probeNodes - prober + probers - 1) / probers);
      return prober + (i % own) * probers;
    }

    private static void pace(long started) throws InterruptedException {
      long rest = PROBE_EVERY.toNanos() - (System.nanoTime() - started);
      if (rest > 0) {
        Thread.sleep(rest / 1_000_000, (int) (rest % 1_000_000)); // probe pacing
      }
    }
  }

  /**
   * The slowest probes (at or above the 95th percentile), each split into Kafka's acknowledgement,
   * the projection (acknowledged to the asking of the request that showed it) and that request's
   * own time; and the same split's means over every probe.
   */
  static String tail(List<Probe> probes) {
    if (probes.isEmpty()) {
      return "  (no probe shown)\n";
    }
    List<Probe> sorted = new ArrayList<>(probes);
    sorted.sort(java.util.Comparator.comparingLong(Probe::shown));
    int from = (int) Math.ceil(0.95 * sorted.size()) - 1;
    StringBuilder out = new StringBuilder();
    out.append(
        "  probe delay split (ms): total = Kafka ack + projection (ack -> the showing request asked)"
            + " + that request; longest earlier request\n");
    out.append("    mean of all %d: %s%n".formatted(sorted.size(), split(mean(sorted))));
    for (Probe probe : sorted.subList(Math.max(0, from), sorted.size())) {
      out.append("    %s%n".formatted(split(probe)));
    }
    return out.toString();
  }

  private static Probe mean(List<Probe> probes) {
    return new Probe(
        (long) probes.stream().mapToLong(Probe::acked).average().orElse(0),
        (long) probes.stream().mapToLong(Probe::shownAsked).average().orElse(0),
        (long) probes.stream().mapToLong(Probe::shown).average().orElse(0),
        (long) probes.stream().mapToLong(Probe::longestMiss).average().orElse(0),
        -1);
  }

  private static String split(Probe p) {
    return "total %7.1f = ack %6.1f + projection %7.1f + request %6.1f; longest miss %6.1f%s"
        .formatted(
            p.shown() / 1000.0,
            p.acked() / 1000.0,
            (p.shownAsked() - p.acked()) / 1000.0,
            (p.shown() - p.shownAsked()) / 1000.0,
            p.longestMiss() / 1000.0,
            p.sentAt() < 0 ? "" : "; sent at +%.1f s".formatted(p.sentAt() / 1000.0));
  }

  /**
   * The fleet's events (heartbeats, one inventory in ten per node) over nodes [probeNodes, nodes)
   * at the configured rate, in seq order per node.
   */
  // Background load at a paced rate, fire and forget: the probes measure, not this load.
  @SuppressWarnings("FutureReturnValueIgnored")
  private static void heartbeats(
      KafkaProducer<String, byte[]> producer,
      AtomicLongArray nextSeq,
      AtomicBoolean loading,
      ProjectionBench.BenchSettings settings,
      BenchKeys keys) {
    long intervalNanos = 1_000_000_000L / settings.heartbeatsPerSecond();
    long due = System.nanoTime();
    int node = settings.probeNodes();
    while (loading.get()) {
      producer.send(EventLoad.record(node, nextSeq.getAndIncrement(node), keys));
      node = node + 1 < settings.nodes() ? node + 1 : settings.probeNodes();
      due += intervalNanos;
      long wait = due - System.nanoTime();
      if (wait > 100_000) {
        java.util.concurrent.locks.LockSupport.parkNanos(wait); // rate pacing
      }
    }
  }

  /** Where the delay until the API showed the probe event went; null past the bound. */
  // The probe's send is not awaited: its arrival is read back through the API (that delay is the
  // figure), and a lost record shows as null, past the bound.
  @SuppressWarnings("FutureReturnValueIgnored")
  private static Probe probeOnce(
      HttpClient http,
      int port,
      String token,
      KafkaProducer<String, byte[]> producer,
      BenchKeys keys,
      int node,
      long seq,
      long sentSinceCountedNanos)
      throws IOException, InterruptedException {
    Instant time = Instant.now().truncatedTo(ChronoUnit.MICROS);
    String name = BenchFleet.nodeName(node);
    // A heartbeat, what the figure names: the probe measures publish -> visible, not an inventory.
    byte[] value = EventCodec.encode(BenchFleet.heartbeat(node, seq, time));
    HttpRequest get =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/v1/nodes/" + name))
            .timeout(PROBE_BOUND)
            .header("Authorization", "Bearer " + token)
            .build();
    AtomicLong acked = new AtomicLong(-1);
    long sent = System.nanoTime();
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(io.fleetwave.events.Topics.NODE_EVENTS, name, value);
    producer.send(
        keys.sign(node, record),
        (metadata, failure) -> {
          if (failure == null) {
            acked.set((System.nanoTime() - sent) / 1000);
          }
        });
    long deadline = sent + PROBE_BOUND.toNanos();
    long longestMiss = 0;
    while (System.nanoTime() < deadline) {
      long asked = System.nanoTime();
      HttpResponse<byte[]> response = http.send(get, HttpResponse.BodyHandlers.ofByteArray());
      long answered = System.nanoTime();
      if (response.statusCode() == 200) {
        JsonNode lastSeen = EventCodec.mapper().readTree(response.body()).get("lastSeen");
        if (lastSeen != null
            && !lastSeen.isNull()
            && !Instant.parse(lastSeen.asText()).isBefore(time)) {
          return new Probe(
              acked.get(),
              (asked - sent) / 1000,
              (answered - sent) / 1000,
              longestMiss / 1000,
              sentSinceCountedNanos / 1_000_000);
        }
      }
      longestMiss = Math.max(longestMiss, answered - asked);
      Thread.sleep(POLL_MILLIS); // polling interval of a bounded wait
    }
    return null;
  }
}
