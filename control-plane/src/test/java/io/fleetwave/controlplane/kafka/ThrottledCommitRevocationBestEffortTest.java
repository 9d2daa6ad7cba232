package io.fleetwave.controlplane.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.testsupport.logging.LogRecords;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.kafka.IncomingKafkaRecord;
import io.smallrye.reactive.messaging.kafka.commit.ContextHolder;
import io.smallrye.reactive.messaging.kafka.commit.KafkaCommitHandler;
import io.vertx.mutiny.core.Context;
import io.vertx.mutiny.core.Vertx;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The revocation commit's failure (the one a packaged control plane logged as an error when the
 * broker's shutdown started a rebalance) is a warning naming the group and the partitions; the
 * rebalance goes on. The throttled handler is stood in for by one that fails its revocation the way
 * Kafka's commitSync does with no coordinator.
 */
class ThrottledCommitRevocationBestEffortTest {
  private static final List<TopicPartition> PARTITIONS =
      List.of(
          new TopicPartition("fleet.node-events", 0), new TopicPartition("fleet.node-events", 1));

  private Vertx vertx;
  private LogRecords log;

  @BeforeEach
  void capture() {
    vertx = Vertx.vertx();
    log = new LogRecords(ThrottledCommitRevocationBestEffort.class);
  }

  @AfterEach
  void release() {
    log.close();
    vertx.closeAndAwait();
  }

  /**
   * The connector hands its Vert.x context to the handler; the throttled one keeps its books there.
   */
  @Test
  void theConnectorsContextReachesTheThrottledHandler() {
    Revoking throttled = new Revoking(vertx, null);
    var handler =
        new ThrottledCommitRevocationBestEffort.Handler(throttled, vertx, "fleetwave-projection");
    Context context = vertx.getOrCreateContext();

    handler.capture(context.getDelegate());

    assertThat(throttled.getContext()).isNotNull();
    assertThat(throttled.getContext().getDelegate()).isSameAs(context.getDelegate());
  }

  @Test
  void aRevocationCommitThatTimesOutIsAWarningAndTheRebalanceGoesOn() {
    Revoking throttled =
        new Revoking(
            vertx,
            new TimeoutException(
                "Timeout of 60000ms expired before successfully committing offsets"));
    var handler =
        new ThrottledCommitRevocationBestEffort.Handler(throttled, vertx, "fleetwave-projection");

    handler.partitionsRevoked(PARTITIONS);

    assertThat(throttled.revoked).containsExactlyElementsOf(PARTITIONS);
    List<LogRecord> logged = log.records();
    assertThat(logged).hasSize(1);
    LogRecord warning = logged.getFirst();
    assertThat(warning.getLevel()).isEqualTo(Level.WARNING);
    assertThat(message(warning))
        .contains("group fleetwave-projection")
        .contains("fleet.node-events-0", "fleet.node-events-1")
        .contains("TimeoutException: Timeout of 60000ms expired");
  }

  @Test
  void aWakeupOfTheConsumersThreadIsNotACommitFailureAndGoesOnToKafka() {
    var handler =
        new ThrottledCommitRevocationBestEffort.Handler(
            new Revoking(vertx, new WakeupException()), vertx, "fleetwave-projection");

    assertThatThrownBy(() -> handler.partitionsRevoked(PARTITIONS))
        .isInstanceOf(WakeupException.class);
    assertThat(log.records()).isEmpty();
  }

  @Test
  void aRevocationThatCommitsLogsNothingAndEveryOtherCallReachesTheThrottledHandler() {
    Revoking throttled = new Revoking(vertx, null);
    var handler =
        new ThrottledCommitRevocationBestEffort.Handler(throttled, vertx, "fleetwave-projection");

    handler.partitionsAssigned(PARTITIONS);
    handler.partitionsRevoked(PARTITIONS);
    handler.handle(null).await().indefinitely();
    handler.terminate(true);

    assertThat(throttled.calls).containsExactly("assigned", "revoked", "handle", "terminate true");
    assertThat(log.records()).isEmpty();
  }

  private static String message(LogRecord record) {
    Object[] parameters = record.getParameters();
    return parameters == null
        ? record.getMessage()
        : String.format(record.getMessage(), parameters);
  }

  /** Records the calls; its revocation fails with the given exception, if any. */
  private static final class Revoking extends ContextHolder implements KafkaCommitHandler {
    private final RuntimeException revocationFailure;
    private final List<String> calls = new ArrayList<>();
    private final List<TopicPartition> revoked = new ArrayList<>();

    Revoking(Vertx vertx, RuntimeException revocationFailure) {
      super(vertx, 1000);
      this.revocationFailure = revocationFailure;
    }

    @Override
    public void partitionsAssigned(Collection<TopicPartition> partitions) {
      calls.add("assigned");
    }

    @Override
    public void partitionsRevoked(Collection<TopicPartition> partitions) {
      calls.add("revoked");
      revoked.addAll(partitions);
      if (revocationFailure != null) {
        throw revocationFailure;
      }
    }

    @Override
    public <K, V> Uni<Void> handle(IncomingKafkaRecord<K, V> record) {
      calls.add("handle");
      return Uni.createFrom().voidItem();
    }

    @Override
    public void terminate(boolean graceful) {
      calls.add("terminate " + graceful);
    }
  }
}
