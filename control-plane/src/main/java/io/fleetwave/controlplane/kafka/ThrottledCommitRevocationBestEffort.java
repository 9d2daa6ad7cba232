package io.fleetwave.controlplane.kafka;

import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.kafka.IncomingKafkaRecord;
import io.smallrye.reactive.messaging.kafka.KafkaConnectorIncomingConfiguration;
import io.smallrye.reactive.messaging.kafka.KafkaConsumer;
import io.smallrye.reactive.messaging.kafka.commit.ContextHolder;
import io.smallrye.reactive.messaging.kafka.commit.KafkaCommitHandler;
import io.vertx.mutiny.core.Context;
import io.vertx.mutiny.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Collection;
import java.util.function.BiConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

/**
 * SmallRye's {@code throttled} commit strategy, except that committing the processed offsets of
 * partitions the group takes away is best effort: a commit that fails there is logged as a warning
 * and the rebalance goes on.
 *
 * <p>The throttled strategy commits those offsets synchronously inside the rebalance. When the
 * rebalance comes from the broker going away (a controlled shutdown moves the group's coordinator
 * off it), that commit waits the consumer's API timeout (60 s) for a coordinator that is not there
 * and fails; SmallRye and Kafka then log it as an error and fail the poll, for an outage the
 * consumer rides out anyway. Nothing is lost by the missed commit: the partitions' next owner
 * resumes from the offsets committed last (every {@code auto.commit.interval.ms}) and gets the
 * records after them again, which a consumer with an idempotent apply (the projection: each event
 * counts once per node and seq) takes as it took them the first time.
 *
 * <p>A wakeup or an interrupt of the consumer's thread is not a commit failure; it goes on to
 * Kafka.
 *
 * <p>Assumes Kafka's default (eager) assignment, where a rebalance revokes every partition and the
 * assignment after it restarts the throttled handler's periodic commits. Under a cooperative
 * assignor a revocation keeps some partitions, and after a failed commit the throttled handler
 * would not restart their periodic commits until the next assignment.
 */
@ApplicationScoped
@Identifier(ThrottledCommitRevocationBestEffort.STRATEGY)
public class ThrottledCommitRevocationBestEffort implements KafkaCommitHandler.Factory {
  /** The {@code commit-strategy} of a channel that uses it. */
  public static final String STRATEGY = "throttled-revocation-best-effort";

  private static final Logger LOG = Logger.getLogger(ThrottledCommitRevocationBestEffort.class);

  private final KafkaCommitHandler.Factory throttled;

  public ThrottledCommitRevocationBestEffort(
      @Identifier("throttled") KafkaCommitHandler.Factory throttled) {
    this.throttled = throttled;
  }

  @Override
  public KafkaCommitHandler create(
      KafkaConnectorIncomingConfiguration config,
      Vertx vertx,
      KafkaConsumer<?, ?> consumer,
      BiConsumer<Throwable, Boolean> reportFailure) {
    String group = config.getGroupId().orElse(config.getChannel());
    return new Handler(throttled.create(config, vertx, consumer, reportFailure), vertx, group);
  }

  /**
   * Delegates everything to the throttled handler and contains its revocation commit's failure. A
   * {@link ContextHolder} because that is how the connector hands a handler its Vert.x context
   * (which the throttled handler runs its bookkeeping on): passed on.
   */
  static final class Handler extends ContextHolder implements KafkaCommitHandler {
    private final KafkaCommitHandler delegate;
    private final String group;

    Handler(KafkaCommitHandler delegate, Vertx vertx, String group) {
      super(vertx, 0); // its own context is never waited on: the delegate's is
      this.delegate = delegate;
      this.group = group;
    }

    @Override
    public void capture(Context context) {
      super.capture(context);
      if (delegate instanceof ContextHolder holder) {
        holder.capture(context);
      }
    }

    @Override
    public void capture(io.vertx.core.Context context) {
      super.capture(context);
      if (delegate instanceof ContextHolder holder) {
        holder.capture(context);
      }
    }

    @Override
    public void partitionsRevoked(Collection<TopicPartition> partitions) {
      try {
        delegate.partitionsRevoked(partitions);
      } catch (WakeupException | InterruptException e) {
        throw e;
      } catch (KafkaException e) {
        LOG.warnf(
            "group %s: the processed offsets of its revoked partitions %s were not committed (%s:"
                + " %s); whoever is assigned them next reads again from the offsets committed"
                + " last, and applying those records again changes nothing",
            group, partitions, e.getClass().getSimpleName(), e.getMessage());
      }
    }

    @Override
    public void partitionsAssigned(Collection<TopicPartition> partitions) {
      delegate.partitionsAssigned(partitions);
    }

    @Override
    public <K, V> Multi<IncomingKafkaRecord<K, V>> decorateStream(
        Multi<IncomingKafkaRecord<K, V>> stream) {
      return delegate.decorateStream(stream);
    }

    @Override
    public <K, V> Uni<IncomingKafkaRecord<K, V>> received(IncomingKafkaRecord<K, V> record) {
      return delegate.received(record);
    }

    @Override
    public <K, V> Uni<Void> handle(IncomingKafkaRecord<K, V> record) {
      return delegate.handle(record);
    }

    @Override
    public void terminate(boolean graceful) {
      delegate.terminate(graceful);
    }
  }
}
