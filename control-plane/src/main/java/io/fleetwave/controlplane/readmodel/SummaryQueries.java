package io.fleetwave.controlplane.readmodel;

import com.github.benmanes.caffeine.cache.AsyncLoadingCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fleetwave.controlplane.config.ApiConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;

/**
 * The fleet summary: counts by host kind, GPU model, MIG mode and health. Counting the whole fleet
 * costs a scan of every GPU row, so it is served from a value at most {@code
 * fleetwave.api.summary-max-age} old (counted from when its count finished), computed one count at
 * a time whatever the number of dashboards polling it: Caffeine recounts in the background once the
 * value is half that old and serves the previous value meanwhile, expires it at the bound (a read
 * then waits for the count in flight), and keeps no failed count.
 *
 * <p>A recount triggered by reads alone leaves a gap: a dashboard that comes back every max-age
 * finds the value expired about every other time and waits for a whole count (0.5-1 s at 10,000
 * nodes under load: the p99 of the endpoint in FleetApiBench). So while the summary is being read
 * (a read within the last {@link #KEEP_COUNTING_FOR}), a scheduled job also recounts every half
 * max-age, and reads find a fresh value; an unread summary costs nothing.
 *
 * <p>Once the application stops, no count starts and one in flight ends as cancelled: the database
 * pool closes before the scheduler and the HTTP server do, and a count on the closed pool was a
 * warning of Caffeine's in every shutdown under reads (which logs no cancellation).
 */
@ApplicationScoped
public class SummaryQueries {
  /** One scan of gpus for the three GPU groupings; grouping() tells which a row belongs to. */
  private static final String GPU_COUNTS = gpuCounts("count(*)", "gpus");

  /**
   * The same over the past's GPUs counted a node at a time ({@link AsOfTables}' gpu_counts: a few
   * rows a node instead of a row a GPU).
   */
  private static final String PAST_GPU_COUNTS = gpuCounts("sum(gpus)", "gpu_counts");

  private static String gpuCounts(String gpus, String from) {
    return "SELECT grouping(mig_mode) AS no_mode, grouping(health) AS no_health, mig_mode, health,"
        + " upper(pci_device_id) AS id, min(product) AS product, "
        + gpus
        + "::bigint AS gpus, count(DISTINCT node) AS nodes FROM "
        + from
        + " GROUP BY GROUPING SETS ((mig_mode), (health), (upper(pci_device_id)))";
  }

  /** The one key: the cache holds the whole fleet's summary. */
  private static final String FLEET = "fleet";

  /** How long after the last read the summary keeps being recounted on schedule. */
  static final Duration KEEP_COUNTING_FOR = Duration.ofSeconds(30);

  private final Pool pool;
  private final AsyncLoadingCache<String, FleetSummary> cached;
  private final Duration maxAge;
  // As if last read before the keep-counting window: nothing is counted until a first read.
  private volatile long lastReadNanos = System.nanoTime() - KEEP_COUNTING_FOR.toNanos();
  private volatile boolean stopping;

  public SummaryQueries(Pool pool, ApiConfig config) {
    this.pool = pool;
    this.maxAge = config.summaryMaxAge();
    this.cached =
        Caffeine.newBuilder()
            .expireAfterWrite(config.summaryMaxAge())
            .refreshAfterWrite(config.summaryMaxAge().dividedBy(2))
            .buildAsync((key, executor) -> countUnlessStopping(pool).subscribeAsCompletionStage());
  }

  private Uni<FleetSummary> countUnlessStopping(Pool pool) {
    if (stopping) {
      return Uni.createFrom().failure(stopped());
    }
    return count(pool).onFailure(failure -> stopping).transform(failure -> stopped());
  }

  private static CancellationException stopped() {
    return new CancellationException(
        "the fleet summary is not counted: the application is stopping");
  }

  /** No count starts from now on; one in flight that fails then ends as cancelled. */
  void stopCounting(@Observes ShutdownEvent event) {
    stopping = true;
  }

  /** The summary, at most {@code fleetwave.api.summary-max-age} old. */
  public Uni<FleetSummary> summary() {
    lastReadNanos = System.nanoTime();
    return Uni.createFrom().completionStage(() -> cached.get(FLEET));
  }

  /** The value held now, without counting, refreshing or marking a read (for tests). */
  Optional<FleetSummary> held() {
    return Optional.ofNullable(cached.synchronous().policy().getIfPresentQuietly(FLEET));
  }

  void keepCounting(@Observes StartupEvent event, Scheduler scheduler) {
    scheduler
        .newJob("fleet-summary-recount")
        .setInterval(maxAge.dividedBy(2).toString())
        .setConcurrentExecution(Scheduled.ConcurrentExecution.SKIP)
        .setTask(execution -> recountIfRead())
        .schedule();
  }

  /** Starts a background recount (one at a time: Caffeine joins one in flight) if recently read. */
  // The count lands in the cache by itself; a failed one keeps the value held (Caffeine logs it).
  @SuppressWarnings("FutureReturnValueIgnored")
  private void recountIfRead() {
    if (!stopping && System.nanoTime() - lastReadNanos < KEEP_COUNTING_FOR.toNanos()) {
      cached.synchronous().refresh(FLEET);
    }
  }

  /** The summary counted now. */
  public static Uni<FleetSummary> count(Pool pool) {
    return count(pool, "", GPU_COUNTS);
  }

  /**
   * The summary of the projection as it stood at {@code moment} (rebuilt from its history, {@link
   * AsOfTables}), counted for this call: a past moment's count is not cached.
   */
  public Uni<FleetSummary> asOf(Instant moment) {
    return asOf(pool, moment);
  }

  static Uni<FleetSummary> asOf(Pool pool, Instant moment) {
    return count(pool, new AsOfTables(moment).with(), PAST_GPU_COUNTS);
  }

  /**
   * The summary counted over the tables that {@code with} names (nothing: the live ones), the GPUs
   * with {@code gpuCounts}.
   */
  private static Uni<FleetSummary> count(Pool pool, String with, String gpuCounts) {
    Uni<Map<String, Long>> hostKinds =
        pool.query(
                with
                    + "SELECT coalesce(host_kind, 'unregistered') AS k, count(*) AS c FROM nodes"
                    + " GROUP BY 1")
            .execute()
            .map(
                rows -> {
                  Map<String, Long> counts = new TreeMap<>();
                  rows.forEach(row -> counts.put(row.getString("k"), row.getLong("c")));
                  return counts;
                });
    Uni<RowSet<Row>> gpus = pool.query(with + gpuCounts).execute();
    return Uni.combine()
        .all()
        .unis(hostKinds, gpus)
        .with(
            (kinds, gpuRows) -> {
              Map<String, Long> migModes = new TreeMap<>();
              Map<String, Long> health = new TreeMap<>();
              List<FleetSummary.GpuModelCount> models = new ArrayList<>();
              for (Row row : gpuRows) {
                if (row.getInteger("no_mode") == 0) {
                  migModes.put(row.getString("mig_mode"), row.getLong("gpus"));
                } else if (row.getInteger("no_health") == 0) {
                  health.put(row.getString("health"), row.getLong("gpus"));
                } else {
                  models.add(model(row));
                }
              }
              models.sort(java.util.Comparator.comparing(FleetSummary.GpuModelCount::pciDeviceId));
              return new FleetSummary(
                  kinds.values().stream().mapToLong(Long::longValue).sum(),
                  models.stream().mapToLong(FleetSummary.GpuModelCount::gpus).sum(),
                  kinds,
                  models,
                  migModes,
                  health);
            });
  }

  private static FleetSummary.GpuModelCount model(Row row) {
    return new FleetSummary.GpuModelCount(
        "0x" + row.getString("id").substring(2),
        row.getString("product"),
        row.getLong("gpus"),
        row.getLong("nodes"));
  }
}
