package io.fleetwave.agent.metrics;

import io.fleetwave.agent.health.AgentHealth;
import io.fleetwave.agent.health.Probe;
import io.fleetwave.agent.publish.OrderedDelivery;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.EventsDropped;
import io.fleetwave.events.node.NodeEvent;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * A running agent's metrics on {@code /metrics}, and its probes beside them: what it published,
 * what waits in its outbox, what it had to drop, how long since Kafka last acknowledged, whether
 * its GPUs are up. Read from the agent as it is, never kept apart from it; the publish counters
 * follow Kafka's acknowledgements, so an event counts once even when it was sent again.
 */
public final class AgentMetrics implements AutoCloseable {
  private static final String PREFIX = "fleetwave_agent_";

  private final HTTPServer server;
  private final PrometheusRegistry registry;

  private AgentMetrics(HTTPServer server, PrometheusRegistry registry) {
    this.server = server;
    this.registry = registry;
  }

  /**
   * Starts serving, at the very start of the agent: its probes at once ({@link Probe}'s paths, on
   * the Prometheus server's default handler: one port, one server), {@code /metrics} from {@link
   * #track} on.
   *
   * @param port 0 for any free port ({@link #port()} tells which)
   * @throws UncheckedIOException naming the address when the port cannot be bound
   */
  public static AgentMetrics serve(AgentHealth health, String address, int port) {
    Objects.requireNonNull(health, "health");
    PrometheusRegistry registry = new PrometheusRegistry();
    try {
      return new AgentMetrics(
          HTTPServer.builder()
              .hostname(address)
              .port(port)
              .registry(registry)
              .defaultHandler(new ProbeHandler(health))
              .buildAndStart(),
          registry);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot serve metrics on " + address + ":" + port + ": " + e.getMessage(), e);
    }
  }

  /**
   * Registers the metrics of this run.
   *
   * @param delivery the run's delivery (its outbox and Kafka's acknowledgements)
   * @param gpusUp whether the GPUs are up now
   */
  public void track(OrderedDelivery delivery, BooleanSupplier gpusUp, Clock clock) {
    Objects.requireNonNull(delivery, "delivery");
    Objects.requireNonNull(gpusUp, "gpusUp");
    Instant tracked = clock.instant();
    Counter published =
        Counter.builder()
            .name(PREFIX + "events_published_total")
            .help("Events Kafka acknowledged, by event type")
            .labelNames("type")
            .register(registry);
    Counter dropped =
        Counter.builder()
            .name(PREFIX + "events_dropped_total")
            .help("Events dropped while the outbox was full, as declared by EventsDropped")
            .register(registry);
    delivery.onAcknowledged(
        (Envelope<NodeEvent> envelope) -> {
          published.labelValues(envelope.type()).inc();
          if (envelope.data() instanceof EventsDropped gap) {
            dropped.inc(gap.count());
          }
        });
    GaugeWithCallback.builder()
        .name(PREFIX + "outbox_events")
        .help("Events waiting for Kafka's acknowledgement")
        .callback(callback -> callback.call(delivery.depth()))
        .register(registry);
    GaugeWithCallback.builder()
        .name(PREFIX + "outbox_bytes")
        .help("Encoded bytes waiting for Kafka's acknowledgement")
        .callback(callback -> callback.call((double) delivery.bytes()))
        .register(registry);
    GaugeWithCallback.builder()
        .name(PREFIX + "seconds_since_last_acknowledged_publish")
        .help("Seconds since Kafka last acknowledged an event of this run (since start before)")
        .callback(
            callback ->
                callback.call(
                    Duration.between(delivery.lastAcknowledged().orElse(tracked), clock.instant())
                            .toMillis()
                        / 1000.0))
        .register(registry);
    GaugeWithCallback.builder()
        .name(PREFIX + "gpus_ready")
        .help("1 when the GPUs are up, 0 while the driver is awaited")
        .callback(callback -> callback.call(gpusUp.getAsBoolean() ? 1 : 0))
        .register(registry);
  }

  /** The port bound, the chosen one when 0 was asked. */
  public int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.close();
  }
}
