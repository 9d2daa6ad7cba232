package io.fleetwave.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.problem.ProblemException;
import io.fleetwave.controlplane.rollout.store.RolloutConflictException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RolloutConflictProblemTest {
  @Test
  void namesTheFirstTwentyNodesCountsAllAndNamesTheRollout() {
    List<String> nodes =
        IntStream.range(0, 25).mapToObj(i -> String.format("node-%02d", i)).toList();
    UUID id = UUID.fromString("6f1c2a7e-0000-4000-8000-000000000001");
    ProblemException problem =
        RolloutsResource.conflict(new RolloutConflictException(nodes, id, "h100-balanced"));

    assertThat(problem.problem().status()).isEqualTo(409);
    assertThat(problem.extensions().get("nodes")).isEqualTo(nodes.subList(0, 20));
    assertThat(problem.extensions().get("nodeCount")).isEqualTo(25);
    assertThat(problem.extensions().get("rollout"))
        .isEqualTo(Map.of("id", id.toString(), "name", "h100-balanced"));
    assertThat(problem.problem().detail())
        .contains("25 planned node(s)", "h100-balanced", id.toString(), "node-19", "and 5 more")
        .doesNotContain("node-20");
  }
}
