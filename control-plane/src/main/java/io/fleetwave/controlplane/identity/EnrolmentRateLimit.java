package io.fleetwave.controlplane.identity;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fleetwave.controlplane.config.NodeIdentityConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Bounds enrolment attempts per source address and per node name, each a token bucket: {@code
 * limit} attempts at once, refilled at {@code limit} per {@code period}. Enrolment is open to the
 * network (the credential is in the body), and each attempt costs a database transaction, an audit
 * row and perhaps a TokenReview call, so a flood from one address, or aimed at one node, is refused
 * with 429 before any of that.
 *
 * <p>An attempt that enrolled gives its source's attempt back ({@link #returnToSource}): the bound
 * per source is on attempts that fail (a guessed token, a flood), so a cluster whose nodes all
 * enroll through one NAT address, or a fleet started on one host, enrolls at once (at most {@code
 * perSource} in flight) instead of {@code perSource} a period. The node's attempt is not given
 * back: a node that enrolls again and again stays bounded.
 *
 * <p>Buckets live in a bounded Caffeine cache (at most {@link #TRACKED} keys, each dropped a period
 * after its last use, when it would be full again anyway): memory stays bounded whatever the flood.
 * Limits are per replica. No library of the project limits per key: SmallRye Fault Tolerance's
 * {@code @RateLimit} bounds a method as a whole, so a flood from one address would lock every node
 * out.
 */
@ApplicationScoped
public class EnrolmentRateLimit {
  /** The most sources and nodes tracked at once. */
  static final long TRACKED = 100_000;

  private final int perSource;
  private final int perNode;
  private final Duration period;
  private final LongSupplier nanoTime;
  private final Cache<String, Bucket> buckets;

  @Inject
  public EnrolmentRateLimit(NodeIdentityConfig config) {
    this(
        config.enrolmentsPerSource(),
        config.enrolmentsPerNode(),
        config.enrolmentRatePeriod(),
        System::nanoTime);
  }

  EnrolmentRateLimit(int perSource, int perNode, Duration period, LongSupplier nanoTime) {
    if (perSource < 1 || perNode < 1 || period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException(
          "enrolment rate limits must be at least 1 per a positive period, got "
              + perSource
              + " per source and "
              + perNode
              + " per node per "
              + period);
    }
    this.perSource = perSource;
    this.perNode = perNode;
    this.period = period;
    this.nanoTime = nanoTime;
    this.buckets =
        Caffeine.newBuilder()
            .maximumSize(TRACKED)
            .expireAfterAccess(period)
            .ticker(nanoTime::getAsLong)
            .build();
  }

  /**
   * Takes one attempt of the source.
   *
   * @throws EnrolmentThrottledException when its bucket is empty
   */
  public void takeForSource(String source) {
    take("source " + source, perSource, "source address " + source);
  }

  /**
   * Takes one attempt for the node.
   *
   * @throws EnrolmentThrottledException when its bucket is empty
   */
  public void takeForNode(String node) {
    take("node " + node, perNode, "node '" + node + "'");
  }

  /**
   * Gives back an attempt {@link #takeForSource} took, for an enrolment that succeeded; the bucket
   * never holds more than its bound.
   */
  public void returnToSource(String source) {
    Bucket bucket = buckets.getIfPresent("source " + source);
    if (bucket != null) {
      bucket.giveBack(perSource);
    }
  }

  private void take(String key, int limit, String what) {
    Bucket bucket = buckets.get(key, k -> new Bucket(limit, nanoTime.getAsLong()));
    long waitNanos = bucket.take(limit, period.toNanos(), nanoTime.getAsLong());
    if (waitNanos > 0) {
      throw new EnrolmentThrottledException(
          "too many enrolment attempts for "
              + what
              + ": at most "
              + limit
              + " per "
              + period
              + "; try again later",
          Duration.ofNanos(waitNanos),
          bucket.firstRefusal());
    }
  }

  /** A token bucket; its methods are synchronized, as requests of one key may run in parallel. */
  private static final class Bucket {
    private double tokens;
    private long at;
    private boolean refusing;
    private boolean firstRefusal;

    Bucket(int limit, long now) {
      this.tokens = limit;
      this.at = now;
    }

    /** 0 when an attempt was taken; else the nanoseconds until the next one may be. */
    synchronized long take(int limit, long periodNanos, long now) {
      double perNano = (double) limit / periodNanos;
      tokens = Math.min(limit, tokens + (now - at) * perNano);
      at = now;
      if (tokens >= 1) {
        tokens -= 1;
        refusing = false;
        return 0;
      }
      firstRefusal = !refusing;
      refusing = true;
      return Math.max(1, (long) Math.ceil((1 - tokens) / perNano));
    }

    synchronized void giveBack(int limit) {
      tokens = Math.min(limit, tokens + 1);
    }

    /** Whether the last refusal was the first since an attempt was last allowed. */
    synchronized boolean firstRefusal() {
      return firstRefusal;
    }
  }
}
