package io.fleetwave.controlplane.rollout.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorTest {
  private static final Map<String, String> TRAINING =
      Map.of("pool", "training", "topology.kubernetes.io/zone", "eu-1a", "gpu", "h100");

  @Test
  void everyOperatorMatchesAsKubernetesDefinesIt() {
    assertThat(matches("pool=training")).isTrue();
    assertThat(matches("pool==training")).isTrue();
    assertThat(matches("pool!=training")).isFalse();
    assertThat(matches("team!=ml")).isTrue();
    assertThat(matches("topology.kubernetes.io/zone in (eu-1a, eu-1b)")).isTrue();
    assertThat(matches("topology.kubernetes.io/zone notin (eu-1a)")).isFalse();
    assertThat(matches("team notin (ml)")).isTrue();
    assertThat(matches("gpu")).isTrue();
    assertThat(matches("!gpu")).isFalse();
    assertThat(matches("!team")).isTrue();
    assertThat(matches("")).isTrue();
  }

  @Test
  void requirementsCombineWithAnd() {
    assertThat(matches("pool=training,gpu in (h100,h200),!cordoned")).isTrue();
    assertThat(matches("pool=training, gpu=a100")).isFalse();
  }

  @Test
  void malformedSelectorsAreRefusedWithPosition() {
    assertThatThrownBy(() -> LabelSelector.parse("pool=training,"))
        .hasMessageContaining("position 15")
        .hasMessageContaining("expected a label key");
    assertThatThrownBy(() -> LabelSelector.parse("pool in training"))
        .hasMessageContaining("expected '(' to open the value set");
    assertThatThrownBy(() -> LabelSelector.parse("pool in (a,b"))
        .hasMessageContaining("expected ',' or ')'");
    assertThatThrownBy(() -> LabelSelector.parse("pool>3"))
        .hasMessageContaining("label key 'pool>3'");
    assertThatThrownBy(() -> LabelSelector.parse("pool=a b"))
        .hasMessageContaining("expected ',' or the end");
    assertThatThrownBy(() -> LabelSelector.parse("pool=-bad-"))
        .hasMessageContaining("label value '-bad-'");
  }

  private static boolean matches(String selector) {
    return LabelSelector.parse(selector).matches(TRAINING);
  }
}
