package io.fleetwave.core.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorTest {
  private static final Map<String, String> LABELS =
      Map.of("pool", "training", "zone", "a", "fleetwave.io/tier", "gold");

  @Test
  void parsesEveryOperator() {
    assertThat(
            LabelSelector.parse(
                    "pool=training, zone==a,tier!=x,env in (a,b),region notin (c),"
                        + " fleetwave.io/tier,!gone")
                .requirements())
        .containsExactly(
            new Requirement.Equals("pool", "training"),
            new Requirement.Equals("zone", "a"),
            new Requirement.NotEquals("tier", "x"),
            new Requirement.In("env", List.of("a", "b")),
            new Requirement.NotIn("region", List.of("c")),
            new Requirement.Exists("fleetwave.io/tier"),
            new Requirement.NotExists("gone"));
  }

  @Test
  void anEmptySelectorMatchesEverything() {
    assertThat(LabelSelector.parse("  ").requirements()).isEmpty();
    assertThat(LabelSelector.parse(null).matches(LABELS)).isTrue();
  }

  @Test
  void matchesWithKubernetesSemantics() {
    assertThat(LabelSelector.parse("pool=training,fleetwave.io/tier").matches(LABELS)).isTrue();
    assertThat(LabelSelector.parse("missing!=x").matches(LABELS)).isTrue();
    assertThat(LabelSelector.parse("missing notin (x)").matches(LABELS)).isTrue();
    assertThat(LabelSelector.parse("missing in (x)").matches(LABELS)).isFalse();
    assertThat(LabelSelector.parse("!pool").matches(LABELS)).isFalse();
    assertThat(LabelSelector.parse("zone in (b,c)").matches(LABELS)).isFalse();
  }

  @Test
  void acceptsAnEmptyValue() {
    assertThat(LabelSelector.parse("pool=").requirements())
        .containsExactly(new Requirement.Equals("pool", ""));
  }

  @Test
  void rejectsBadSyntaxNamingThePosition() {
    assertRejected("pool in (a", "expected ',' or ')' in the value set at position 10");
    assertRejected("pool in a", "expected '(' to open the value set at position 8");
    assertRejected("pool in ()", "expected a label value at position 9");
    assertRejected("pool =", null);
    assertRejected("pool is a", "expected an operator");
    assertRejected("a=b c=d", "expected ',' or the end of the selector at position 4");
    assertRejected("a=b,", "expected a label key at position 4, found end of input");
    assertRejected("pool=a b", "position 7");
    assertRejected("pool>1", "unexpected character '>' at position 4");
    assertRejected("-pool", "label key '-pool' is invalid");
    assertRejected("Bad_Prefix/x", "key prefix 'Bad_Prefix' is not a DNS subdomain");
    assertRejected("pool=" + "v".repeat(64), "label value");
    assertRejected("!", "expected a label key");
  }

  @Test
  void checksAKeyOnItsOwn() {
    LabelSelector.checkKey("topology.kubernetes.io/zone");
    assertThatThrownBy(() -> LabelSelector.checkKey("zone label"))
        .isInstanceOf(LabelSelectorException.class)
        .hasMessageContaining("label key 'zone label' is invalid");
    assertThatThrownBy(() -> LabelSelector.checkKey("Bad_Prefix/zone"))
        .hasMessageContaining("key prefix 'Bad_Prefix'");
  }

  private static void assertRejected(String selector, String message) {
    if (message == null) {
      assertThat(LabelSelector.parse(selector).requirements())
          .containsExactly(new Requirement.Equals("pool", ""));
      return;
    }
    assertThatThrownBy(() -> LabelSelector.parse(selector))
        .isInstanceOf(LabelSelectorException.class)
        .hasMessageContaining(message)
        .hasMessageContaining("'" + selector + "'");
  }
}
