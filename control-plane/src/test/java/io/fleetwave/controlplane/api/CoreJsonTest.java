package io.fleetwave.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.core.rollout.decide.RolloutState;
import io.fleetwave.core.rollout.plan.FailureAction;
import io.fleetwave.core.rollout.plan.LargeFleetPlans;
import io.fleetwave.core.rollout.plan.RolloutPlan;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The core's types in JSON as the API answers and as RolloutCreated carries them. The expected
 * strings are what the Jackson annotations these types carried before rollout-core wrote (the
 * control plane of 0df159a, run through EventCodec's mapper): the mix-ins must not change a byte.
 */
class CoreJsonTest {
  private static final ObjectMapper JSON = CoreJson.mapper();

  private static final DriverArtifact CONTAINER =
      new DriverArtifact.ContainerImage(
          "580.95.05",
          "nvcr.io/nvidia/driver:580.95.05-ubuntu22.04",
          "580.95.05-ubuntu22.04",
          true);

  @Test
  void driverArtifactsCarryTheirKindAndDescription() throws Exception {
    assertThat(JSON.writerFor(DriverArtifact.class).writeValueAsString(CONTAINER))
        .isEqualTo(
            "{\"kind\":\"container-image\",\"driverVersion\":\"580.95.05\","
                + "\"image\":\"nvcr.io/nvidia/driver:580.95.05-ubuntu22.04\","
                + "\"tag\":\"580.95.05-ubuntu22.04\",\"precompiled\":true,"
                + "\"description\":\"precompiled driver container"
                + " nvcr.io/nvidia/driver:580.95.05-ubuntu22.04\"}");
    assertThat(JSON.writeValueAsString(CONTAINER))
        .as("the record alone, as a plan's node holds it")
        .isEqualTo(JSON.writerFor(DriverArtifact.class).writeValueAsString(CONTAINER));
    assertThat(
            JSON.writerFor(DriverArtifact.class)
                .writeValueAsString(
                    new DriverArtifact.HostPackage(
                        "580.95.05", "nvidia-driver-580", "580.95.05-0ubuntu1")))
        .isEqualTo(
            "{\"kind\":\"host-package\",\"driverVersion\":\"580.95.05\","
                + "\"packageName\":\"nvidia-driver-580\",\"packageVersion\":\"580.95.05-0ubuntu1\","
                + "\"description\":\"host package nvidia-driver-580 580.95.05-0ubuntu1\"}");
    assertThat(
            JSON.writerFor(DriverArtifact.class)
                .writeValueAsString(new DriverArtifact.OsImage("580.95.05", "talos", "1.9.0")))
        .isEqualTo(
            "{\"kind\":\"os-image\",\"driverVersion\":\"580.95.05\",\"osId\":\"talos\","
                + "\"osVersion\":\"1.9.0\","
                + "\"description\":\"needs OS image with driver 580.95.05 (talos upgrade)\"}");
    assertThat(
            JSON.readValue(
                JSON.writerFor(DriverArtifact.class).writeValueAsString(CONTAINER),
                DriverArtifact.class))
        .isEqualTo(CONTAINER);
  }

  @Test
  void enumsAreTheirWireNames() throws Exception {
    assertThat(JSON.writeValueAsString(List.of(FailureAction.PAUSE, FailureAction.ROLLBACK)))
        .isEqualTo("[\"pause\",\"rollback\"]");
    assertThat(JSON.writeValueAsString(RolloutState.values()))
        .isEqualTo(
            "[\"created\",\"running\",\"paused\",\"rolling-back\",\"completed\",\"aborted\","
                + "\"rolled-back\",\"failed\"]");
    assertThat(JSON.readValue("\"rolling-back\"", RolloutState.class))
        .isEqualTo(RolloutState.ROLLING_BACK);
    assertThat(JSON.readValue("\"rollback\"", FailureAction.class))
        .isEqualTo(FailureAction.ROLLBACK);
    assertThatThrownBy(() -> JSON.readValue("\"ROLLBACK\"", FailureAction.class))
        .isInstanceOf(ValueInstantiationException.class)
        .hasMessageContaining("unknown failure action 'ROLLBACK', expected one of pause, rollback");
  }

  @Test
  void aPlanReadsBackAsItWasWritten() throws Exception {
    RolloutPlan plan = LargeFleetPlans.plan("json", 3, 1);

    String text = JSON.writeValueAsString(plan);

    assertThat(JSON.readValue(text, RolloutPlan.class)).isEqualTo(plan);
    assertThat(JSON.writeValueAsString(JSON.readValue(text, RolloutPlan.class))).isEqualTo(text);
  }
}
