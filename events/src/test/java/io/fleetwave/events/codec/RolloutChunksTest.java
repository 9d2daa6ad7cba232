package io.fleetwave.events.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutCreatedInChunks;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutPlanChunk;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RolloutChunksTest {
  /** Kafka's default max.message.bytes. */
  private static final int KAFKA_DEFAULT_LIMIT = 1_048_588;

  @Test
  void aSmallCreationIsOneRecord() {
    RolloutCreated created = created(10, "n");
    assertThat(RolloutChunks.of(created)).containsExactly(created);
  }

  @Test
  void aLargeCreationIsAHeaderAndChunksThatJoinToItEachRecordBelowKafkasLimit() {
    // Quotes, backslashes and non-ASCII names: the characters that grow most in a record.
    RolloutCreated created = created(60_000, "nœud-\"q\"\\-𝔾-");

    List<RolloutEvent> logged = RolloutChunks.of(created);

    assertThat(logged.getFirst()).isInstanceOf(RolloutCreatedInChunks.class);
    RolloutCreatedInChunks header = (RolloutCreatedInChunks) logged.getFirst();
    assertThat(header.chunks()).isEqualTo(logged.size() - 1).isGreaterThan(1);
    List<RolloutPlanChunk> chunks = new ArrayList<>();
    long seq = 1;
    for (RolloutEvent event : logged) {
      byte[] record =
          EventCodec.encode(Envelope.of(URI.create("t:t"), "r", Instant.EPOCH, 0, seq++, event));
      assertThat(record.length).as("record %d", seq - 1).isLessThan(KAFKA_DEFAULT_LIMIT);
      if (event instanceof RolloutPlanChunk chunk) {
        chunks.add(chunk);
      }
    }
    assertThat(RolloutChunks.join(header, chunks)).isEqualTo(created);
  }

  @Test
  void chunksThatDoNotMatchTheirHeaderAreRefusedSayingWhy() {
    List<RolloutEvent> logged = RolloutChunks.of(created(20_000, "n"));
    RolloutCreatedInChunks header = (RolloutCreatedInChunks) logged.getFirst();
    List<RolloutPlanChunk> chunks =
        logged.stream().skip(1).map(RolloutPlanChunk.class::cast).toList();

    assertThatThrownBy(() -> RolloutChunks.join(header, chunks.subList(0, chunks.size() - 1)))
        .hasMessageContaining("chunk(s) for a creation logged in " + chunks.size());
    List<RolloutPlanChunk> swapped = new ArrayList<>(chunks);
    swapped.set(0, chunks.get(1));
    swapped.set(1, chunks.get(0));
    assertThatThrownBy(() -> RolloutChunks.join(header, swapped))
        .hasMessageContaining("chunk 1 where chunk 0 belongs");
    List<RolloutPlanChunk> altered = new ArrayList<>(chunks);
    altered.set(0, new RolloutPlanChunk(0, chunks.getFirst().text().replace('n', 'm')));
    assertThatThrownBy(() -> RolloutChunks.join(header, altered))
        .hasMessageContaining("the header says " + header.sha256());
  }

  private static RolloutCreated created(int nodes, String prefix) {
    List<String> canary = List.of(prefix + 0);
    List<String> rest = new ArrayList<>();
    for (int i = 1; i < nodes; i++) {
      rest.add(prefix + i);
    }
    var plan = EventCodec.mapper().createObjectNode().put("plannedNodes", nodes);
    var planned = plan.putArray("nodes");
    rest.forEach(n -> planned.addObject().put("node", n).put("zone", "z1"));
    return new RolloutCreated(
        "big",
        List.of(canary, rest),
        EventCodec.mapper().createObjectNode().put("name", "big"),
        plan,
        "alice");
  }
}
