package io.fleetwave.controlplane.rollout.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.api.CoreJson;
import io.fleetwave.core.rollout.plan.LargeFleetPlans;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.codec.RolloutChunks;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutCreatedInChunks;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutPlanChunk;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * How large a rollout's creation is in fleet.rollout-events, measured with the real planner's
 * plans: one RolloutCreated record outgrows Kafka's default limit at a few hundred nodes of 8 GPUs,
 * so a creation that large is logged in chunks, every record below the limit, and joined again.
 *
 * <p>20,000 nodes of one GPU ({@code -Dscale.rolloutCreated.nodes}), not the 100,000 this test ran
 * with until 2026-12-07: a chunk's bound and the header's size do not depend on the plan's size
 * ({@code RolloutChunks}), so every assertion holds alike from a creation in several chunks up. At
 * 100,000 nodes it took 22.5 s of the control plane's unit tests, which every module after the
 * control plane waits for, and of the fast tier; {@code -Dscale.rolloutCreated.nodes=100000} runs
 * it at that size.
 */
class RolloutCreatedSizeTest {
  /** Kafka's default {@code max.message.bytes} (1 MiB plus the record batch overhead). */
  private static final int KAFKA_DEFAULT_LIMIT = 1_048_588;

  private static final ObjectMapper JSON = CoreJson.mapper();
  private static final UUID ID = UUID.fromString("5e1f0000-0000-4000-8000-0000000b1900");
  private static final int NODES = Integer.getInteger("scale.rolloutCreated.nodes", 20_000);

  @Test
  void oneRecordOutgrowsKafkasDefaultLimitAtAFewHundredEightGpuNodes() throws IOException {
    // The size grows linearly with the nodes: find the first node count past the limit from two
    // measurements, then check it exactly.
    int small = inlineBytes(100, 8);
    int large = inlineBytes(1_000, 8);
    double perNode = (large - small) / 900.0;
    int breaks = 100 + (int) Math.ceil((KAFKA_DEFAULT_LIMIT - small) / perNode);
    while (inlineBytes(breaks, 8) > KAFKA_DEFAULT_LIMIT) {
      breaks--;
    }
    while (inlineBytes(breaks, 8) <= KAFKA_DEFAULT_LIMIT) {
      breaks++;
    }
    System.out.printf(
        "RolloutCreated as one record, nodes of 8 H100 GPUs: %.0f bytes per node; exceeds Kafka's"
            + " default max.message.bytes (%d) from %d nodes (100,000 nodes: about %d MB)%n",
        perNode, KAFKA_DEFAULT_LIMIT, breaks, Math.round(perNode * 100_000 / 1_000_000));
    assertThat(breaks).isBetween(100, 1_000);
  }

  @Test
  void aLargeFleetIsLoggedInChunksEachBelowTheLimitAndJoinToTheCreation() throws IOException {
    RolloutCreated created = created(NODES, 1);

    List<RolloutEvent> logged = RolloutChunks.of(created);

    assertThat(logged.getFirst()).isInstanceOf(RolloutCreatedInChunks.class);
    long largest = 0;
    long total = 0;
    for (Envelope<RolloutEvent> envelope :
        RolloutLog.envelopes(ID, 0, 0, logged, Instant.parse("2026-11-30T12:00:00Z"))) {
      int bytes = EventCodec.encode(envelope).length;
      largest = Math.max(largest, bytes);
      total += bytes;
    }
    System.out.printf(
        "RolloutCreated of %,d nodes: %d records, %d bytes in all, the largest %d bytes%n",
        NODES, logged.size(), total, largest);
    assertThat(logged.size()).as("a creation in several chunks").isGreaterThan(3);
    assertThat(largest).isLessThan(KAFKA_DEFAULT_LIMIT);
    List<RolloutPlanChunk> chunks =
        logged.stream().skip(1).map(RolloutPlanChunk.class::cast).toList();
    assertThat(RolloutChunks.join((RolloutCreatedInChunks) logged.getFirst(), chunks))
        .isEqualTo(created);
  }

  private static int inlineBytes(int nodes, int gpus) throws IOException {
    return EventCodec.encode(
            RolloutLog.envelopes(ID, 0, 0, List.of(created(nodes, gpus)), Instant.EPOCH).getFirst())
        .length;
  }

  /** The creation the engine logs for a rollout the API stored with the planner's plan. */
  static RolloutCreated created(int nodes, int gpus) throws IOException {
    String prefix = "size";
    return RolloutBook.creation(
        JSON,
        prefix,
        new RolloutProgressStore.Creation(
            JSON.writeValueAsString(LargeFleetPlans.spec(prefix)),
            JSON.writeValueAsString(LargeFleetPlans.plan(prefix, nodes, gpus)),
            "test-admin",
            Instant.EPOCH));
  }
}
