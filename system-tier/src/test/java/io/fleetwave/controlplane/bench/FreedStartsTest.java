package io.fleetwave.controlplane.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.events.codec.EventCodec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FreedStartsTest {
  private final List<JsonNode> log = new ArrayList<>();

  @Test
  void eachSlidingStartIsPairedWithTheCompletionThatFreedItsSlot() {
    // maxUnavailable 2: a and b fill the window; b finishes first and frees c, then a frees d.
    started(1, "a");
    started(1, "b");
    succeeded(1, "b");
    started(1, "c");
    failed(1, "a");
    succeeded(1, "c");
    started(1, "d");

    FreedStarts.Result result = FreedStarts.of(log, 2);

    assertThat(result.pairs())
        .containsExactly(
            new FreedStarts.Pair("rollout", 1, "b", "c"),
            new FreedStarts.Pair("rollout", 1, "a", "d"));
    assertThat(result.fills()).containsOnlyKeys("rollout/1");
    assertThat(result.fills().get("rollout/1")).containsExactly("a", "b");
    assertThat(result.unpaired()).isZero();
  }

  @Test
  void aWaveStartsWithItsOwnFillAndTheLastCompletionsOfTheWaveBeforeFreeNothingInIt() {
    started(1, "a");
    succeeded(1, "a");
    started(2, "b");
    started(2, "c");
    succeeded(2, "b");
    started(2, "d");

    FreedStarts.Result result = FreedStarts.of(log, 2);

    assertThat(result.pairs()).containsExactly(new FreedStarts.Pair("rollout", 2, "b", "d"));
    assertThat(result.fills().get("rollout/1")).containsExactly("a");
    assertThat(result.fills().get("rollout/2")).containsExactly("b", "c");
  }

  @Test
  void aStartPastTheWindowWithNoCompletionBeforeItIsCountedUnpaired() {
    started(1, "a");
    started(1, "b");

    FreedStarts.Result result = FreedStarts.of(log, 1);

    assertThat(result.pairs()).isEmpty();
    assertThat(result.unpaired()).isEqualTo(1);
  }

  private void started(int wave, String node) {
    add("node-started", wave, node);
  }

  private void succeeded(int wave, String node) {
    add("node-succeeded", wave, node);
  }

  private void failed(int wave, String node) {
    add("node-failed", wave, node);
  }

  private void add(String type, int wave, String node) {
    var event = EventCodec.mapper().createObjectNode();
    event.put("seq", log.size() + 1).put("type", "io.fleetwave.rollout." + type + ".v1");
    event.putObject("data").put("wave", wave).put("node", node).put("phase", "rollout");
    log.add(event);
  }
}
