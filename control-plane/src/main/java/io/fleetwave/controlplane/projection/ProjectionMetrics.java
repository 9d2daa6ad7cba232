package io.fleetwave.controlplane.projection;

import io.fleetwave.core.projection.BatchChanges;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.TimeUnit;

/**
 * The projection's own meters, exported on /q/metrics with the {@code fleetwave_} prefix; created
 * at start so that they are exported (at zero) before the first batch.
 */
@Startup
@ApplicationScoped
public class ProjectionMetrics {
  private final Counter projected;
  private final Counter duplicates;
  private final Counter deadLettered;
  private final DistributionSummary batchSize;
  private final Timer batchDuration;
  private final Timer staleness;

  public ProjectionMetrics(MeterRegistry registry) {
    // Each meter is built with its name written out: deploy's AlertsTest reads the names from this
    // source to check that every alert reads a metric the control plane serves.
    projected =
        Counter.builder("fleetwave.projection.events.projected")
            .description("Node events applied to the projection")
            .register(registry);
    duplicates =
        Counter.builder("fleetwave.projection.events.skipped")
            .description("Node events skipped as duplicates, replays or older than the applied one")
            .register(registry);
    deadLettered =
        Counter.builder("fleetwave.projection.events.dead.lettered")
            .description(
                "Records refused (undecodable, or refused by PostgreSQL) and sent to the"
                    + " dead-letter topic")
            .register(registry);
    batchSize =
        DistributionSummary.builder("fleetwave.projection.batch.size")
            .description(
                "Records per projection transaction (the batches that waited for one write)")
            .publishPercentileHistogram()
            .register(registry);
    batchDuration =
        Timer.builder("fleetwave.projection.batch.duration")
            .description("From a batch handed to the projection to its offsets acknowledged")
            .publishPercentiles(0.5, 0.99)
            .publishPercentileHistogram()
            .register(registry);
    staleness =
        Timer.builder("fleetwave.projection.batch.staleness")
            .description(
                "From the oldest record of a batch written to Kafka (its timestamp) to the batch"
                    + " committed in PostgreSQL: how old the projection's picture can be")
            .publishPercentiles(0.5, 0.99)
            .publishPercentileHistogram()
            .register(registry);
  }

  /** A batch went through: from {@code startNanos} (System.nanoTime) to now. */
  public void recordBatchDuration(long startNanos) {
    batchDuration.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
  }

  /** A batch committed whose oldest record Kafka stamped at {@code oldestRecordMillis}. */
  public void recordStaleness(long oldestRecordMillis) {
    if (oldestRecordMillis > 0) {
      staleness.record(
          Math.max(0, System.currentTimeMillis() - oldestRecordMillis), TimeUnit.MILLISECONDS);
    }
  }

  public void recordBatch(int records, BatchChanges changes, int rejected) {
    batchSize.record(records);
    projected.increment(changes.applied().size());
    duplicates.increment(changes.skipped());
    deadLettered.increment(rejected);
  }

  /** Records PostgreSQL refused, dead-lettered while their batch was applied around them. */
  public void recordRefused(int refused) {
    deadLettered.increment(refused);
  }

  public double projected() {
    return projected.count();
  }

  public double skipped() {
    return duplicates.count();
  }

  public double deadLettered() {
    return deadLettered.count();
  }
}
