package io.fleetwave.controlplane.kafka;

import io.fleetwave.controlplane.config.KafkaConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.Startup;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.common.annotation.Identifier;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.jboss.logging.Logger;

/**
 * Whether the Kafka cluster answers, since when it does not and why: a probe ({@code
 * describeCluster}, the Admin client's own bounded call) every {@code
 * fleetwave.kafka.probe-interval}. One log line when the broker is lost and one when it is back,
 * however many probes lie between; readiness reports the outage ({@link KafkaReadiness}), {@code
 * fleetwave_kafka_unreachable_seconds} measures it, and what needs the broker is refused at once
 * meanwhile instead of each caller waiting out its own timeout. The Kafka clients themselves
 * reconnect on their own (reconnect backoff); this only observes.
 */
@Startup
@ApplicationScoped
public class KafkaReachability {
  private static final Logger LOG = Logger.getLogger(KafkaReachability.class);

  /** The broker has not answered since {@code since}; {@code cause} is the latest probe's. */
  public record Outage(Instant since, String cause, long failedProbes) {
    /** The readiness reason, and the detail of a refused request. */
    public String reason() {
      return "Kafka unreachable since " + since + ": " + cause;
    }
  }

  private final Clock clock;
  private final Duration interval;
  private final Duration timeout;
  private final Admin admin;
  private final ScheduledExecutorService prober;
  private final AtomicReference<Outage> current = new AtomicReference<>();
  private volatile ScheduledFuture<?> probes;

  @Inject
  public KafkaReachability(
      @Identifier("default-kafka-broker") Map<String, Object> kafka,
      KafkaConfig config,
      MeterRegistry registry) {
    this(kafka, config.probeInterval(), config.probeTimeout(), registry, Clock.systemUTC());
  }

  KafkaReachability(
      Map<String, Object> kafka,
      Duration interval,
      Duration timeout,
      MeterRegistry registry,
      Clock clock) {
    this.clock = clock;
    this.interval = interval;
    this.timeout = timeout;
    Map<String, Object> config = KafkaClientConfig.shared(kafka);
    config.put(AdminClientConfig.CLIENT_ID_CONFIG, "fleetwave-kafka-probe");
    config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    this.admin = Admin.create(config);
    Gauge.builder("fleetwave.kafka.unreachable", current, ref -> seconds(ref.get(), clock))
        .description("How long the Kafka cluster has not answered (0 while it does)")
        .baseUnit("seconds")
        .register(registry);
    this.prober =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> Thread.ofPlatform().name("kafka-probe").daemon().unstarted(runnable));
  }

  void onStart(@Observes StartupEvent event) {
    probes =
        prober.scheduleWithFixedDelay(this::probe, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The outage now, if the broker does not answer. */
  public Optional<Outage> outage() {
    return Optional.ofNullable(current.get());
  }

  void probe() {
    try {
      admin
          .describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
          .nodes()
          .get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
      reachable();
    } catch (ExecutionException e) {
      unreachable(e.getCause() == null ? e : e.getCause());
    } catch (TimeoutException e) {
      unreachable(new TimeoutException("no answer within " + timeout.toMillis() + " ms"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      unreachable(e);
    }
  }

  private void unreachable(Throwable failure) {
    String cause =
        KafkaRefusal.of(failure)
            .orElseGet(() -> failure.getClass().getSimpleName() + ": " + failure.getMessage());
    Outage before =
        current.getAndUpdate(
            outage ->
                outage == null
                    ? new Outage(clock.instant(), cause, 1)
                    : new Outage(outage.since(), cause, outage.failedProbes() + 1));
    if (before == null) {
      LOG.warnf(
          "%s; consumers keep polling and producers refuse what they cannot deliver within their"
              + " bounds (the API answers 503); everything resumes by itself once it answers",
          current.get().reason());
    }
  }

  private void reachable() {
    Outage ended = current.getAndSet(null);
    if (ended != null) {
      LOG.infof(
          "Kafka reachable again after %.1f s (%d failed probes); last cause: %s",
          seconds(ended, clock), ended.failedProbes(), ended.cause());
    }
  }

  void onStop(@Observes ShutdownEvent event) {
    if (probes != null) {
      probes.cancel(true);
    }
    prober.shutdownNow();
    admin.close(Duration.ofSeconds(2));
  }

  private static double seconds(Outage outage, Clock clock) {
    return outage == null
        ? 0
        : Duration.between(outage.since(), clock.instant()).toMillis() / 1000.0;
  }
}
