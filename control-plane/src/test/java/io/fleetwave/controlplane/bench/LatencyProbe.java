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
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Publish-to-visible delay. A background thread sends heartbeats round-robin over every node but
 * the probe nodes at a fixed rate; the probe sends a heartbeat with a unique time to a probe node
 * and polls the API until the node's lastSeen shows it. The Kafka round trip runs beside it.
 */
final class LatencyProbe {
  private static final Duration PROBE_BOUND = Duration.ofSeconds(10);
  private static final Duration PROBE_EVERY = Duration.ofMillis(100);
  // -Dbench.probePollMillis: how often the probe asks the API (1 ms by default, as before). Each
  // ask
  // is a request with a bearer token (an RSA check): at 1 ms the probe itself is up to 1,000
  // requests a second on the machine it measures.
  private static final long POLL_MILLIS = Long.getLong("bench.probePollMillis", 1);

  record Result(Percentiles api, Percentiles kafka, int timeouts) {}

  private LatencyProbe() {}

  static Result run(
      String bootstrap,
      int port,
      String token,
      ProjectionBench.BenchSettings settings,
      BenchKeys keys)
      throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long[] nextSeq = new long[settings.nodes()];
    java.util.Arrays.fill(nextSeq, settings.eventsPerNode());
    AtomicBoolean loading = new AtomicBoolean(true);
    List<Long> apiMicros = new ArrayList<>();
    int timeouts = 0;
    try (KafkaProducer<String, byte[]> producer = EventLoad.producer(bootstrap);
        RoundTrip roundTrip = new RoundTrip(bootstrap)) {
      Thread load =
          Thread.ofPlatform()
              .name("bench-heartbeats")
              .start(() -> heartbeats(producer, nextSeq, loading, settings, keys));
      long end = System.nanoTime() + settings.latencyDuration().toNanos();
      int probe = 0;
      while (System.nanoTime() < end) {
        long started = System.nanoTime();
        int node = probe % settings.probeNodes();
        RoundTrip.send(producer, probe);
        long delay = probeOnce(http, port, token, producer, keys, node, nextSeq[node]++);
        if (delay < 0) {
          timeouts++;
        } else {
          apiMicros.add(delay);
        }
        probe++;
        long rest = PROBE_EVERY.toNanos() - (System.nanoTime() - started);
        if (rest > 0) {
          Thread.sleep(rest / 1_000_000, (int) (rest % 1_000_000)); // probe pacing
        }
      }
      loading.set(false);
      EventLoad.awaitQuietly(load);
      return new Result(
          Percentiles.of(apiMicros.stream().mapToLong(Long::longValue).toArray()),
          roundTrip.result(),
          timeouts);
    }
  }

  /**
   * The fleet's events (heartbeats, one inventory in ten per node) over nodes [probeNodes, nodes)
   * at the configured rate, in seq order per node.
   */
  // Background load at a paced rate, fire and forget: the probes measure, not this load.
  @SuppressWarnings("FutureReturnValueIgnored")
  private static void heartbeats(
      KafkaProducer<String, byte[]> producer,
      long[] nextSeq,
      AtomicBoolean loading,
      ProjectionBench.BenchSettings settings,
      BenchKeys keys) {
    long intervalNanos = 1_000_000_000L / settings.heartbeatsPerSecond();
    long due = System.nanoTime();
    int node = settings.probeNodes();
    while (loading.get()) {
      producer.send(EventLoad.record(node, nextSeq[node]++, keys));
      node = node + 1 < settings.nodes() ? node + 1 : settings.probeNodes();
      due += intervalNanos;
      long wait = due - System.nanoTime();
      if (wait > 100_000) {
        java.util.concurrent.locks.LockSupport.parkNanos(wait); // rate pacing
      }
    }
  }

  /** Microseconds until the API shows the probe event, or -1 past the bound. */
  // The probe's send is not awaited: its arrival is read back through the API (that delay is the
  // figure), and a lost record shows as -1, past the bound.
  @SuppressWarnings("FutureReturnValueIgnored")
  private static long probeOnce(
      HttpClient http,
      int port,
      String token,
      KafkaProducer<String, byte[]> producer,
      BenchKeys keys,
      int node,
      long seq)
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
    long sent = System.nanoTime();
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(io.fleetwave.events.Topics.NODE_EVENTS, name, value);
    producer.send(keys == null ? record : keys.sign(node, record));
    long deadline = sent + PROBE_BOUND.toNanos();
    while (System.nanoTime() < deadline) {
      HttpResponse<byte[]> response = http.send(get, HttpResponse.BodyHandlers.ofByteArray());
      if (response.statusCode() == 200) {
        JsonNode lastSeen = EventCodec.mapper().readTree(response.body()).get("lastSeen");
        if (lastSeen != null
            && !lastSeen.isNull()
            && !Instant.parse(lastSeen.asText()).isBefore(time)) {
          return (System.nanoTime() - sent) / 1000;
        }
      }
      Thread.sleep(POLL_MILLIS); // polling interval of a bounded wait
    }
    return -1;
  }
}
