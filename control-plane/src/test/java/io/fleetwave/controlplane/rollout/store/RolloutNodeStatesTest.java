package io.fleetwave.controlplane.rollout.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.core.rollout.decide.NodeState;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RolloutNodeStatesTest {
  @Test
  void theStoreListsExactlyTheEnginesNodeStatesInOrder() {
    assertThat(RolloutProgressReader.NODE_STATES)
        .containsExactlyElementsOf(
            Arrays.stream(NodeState.values()).map(NodeState::wireName).toList());
  }
}
