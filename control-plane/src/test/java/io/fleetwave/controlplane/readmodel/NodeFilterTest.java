package io.fleetwave.controlplane.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.controlplane.problem.ProblemException;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class NodeFilterTest {
  @Test
  void noFiltersMatchEverything() {
    NodeFilter.Condition condition = NodeFilter.parse(null, "", null).toSql();
    assertThat(condition.sql()).isEqualTo("TRUE");
    assertThat(condition.params()).isEmpty();
  }

  @Test
  void translatesEveryFilterToParameters() {
    NodeFilter.Condition condition =
        NodeFilter.parse("talos", "0x233010de", "pool=a,zone notin (b),!gone").toSql();
    assertThat(condition.sql())
        .isEqualTo(
            "n.host_kind = $1 AND EXISTS (SELECT 1 FROM gpus g WHERE g.node = n.name AND"
                + " upper(g.pci_device_id) = upper($2)) AND n.labels @> $3 AND NOT"
                + " coalesce((n.labels ->> $4) = ANY($5::text[]), false) AND (n.labels ->> $6) IS"
                + " NULL");
    assertThat(condition.params().subList(0, 4))
        .containsExactly("talos", "0x233010DE", new JsonObject().put("pool", "a"), "zone");
    assertThat((String[]) condition.params().get(4)).containsExactly("b");
    assertThat(condition.params().get(5)).isEqualTo("gone");
  }

  @Test
  void refusesBadValuesWithSpecificMessages() {
    assertThatThrownBy(() -> NodeFilter.parse("windows", null, null))
        .hasMessageContaining("unknown host kind 'windows', expected one of ubuntu");
    assertThatThrownBy(() -> NodeFilter.parse(null, "0x2330", null))
        .hasMessageContaining("'gpuModel' must be a PCI device id");
    assertThatThrownBy(() -> NodeFilter.parse(null, null, "a in"))
        .isInstanceOf(ProblemException.class)
        .hasMessageContaining("expected '(' to open the value set");
  }

  @Test
  void aZoneIsOneMoreParameterAfterTheOthersAndABlankOneAddsNothing() {
    NodeFilter.Condition condition = NodeFilter.parse("cos", null, null).toSql().inZone("zone-b");
    assertThat(condition.sql()).isEqualTo("(n.host_kind = $1) AND n.zone = $2");
    assertThat(condition.params()).containsExactly("cos", "zone-b");
    NodeFilter.Condition unchanged = NodeFilter.parse(null, null, null).toSql();
    assertThat(unchanged.inZone(" ")).isEqualTo(unchanged);
    assertThat(unchanged.inZone(null)).isEqualTo(unchanged);
  }
}
