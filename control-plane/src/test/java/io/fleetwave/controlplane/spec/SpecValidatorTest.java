package io.fleetwave.controlplane.spec;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.projection.ObservedGpu;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.spec.GatePolicy;
import io.fleetwave.events.spec.GpuSpec;
import io.fleetwave.events.spec.NodeSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SpecValidatorTest {
  private static final SpecValidator VALIDATOR = new SpecValidator(GpuCatalog.bundled());
  private static final ObservedGpu H100 =
      new ObservedGpu(0, "0x233010DE", "NVIDIA H100 80GB HBM3", true, Map.of("7g.80gb", 1), 32, 0);
  private static final ObservedGpu A100 =
      new ObservedGpu(1, "0x20B010DE", "NVIDIA A100-SXM4-40GB", false, Map.of(), 0, 0);

  /** The decision on the first spec asked for a node of an H100 (GPU 0) and an A100 (GPU 1). */
  private static SpecDecision firstSpecOfH100AndA100(SpecRequest request) {
    return VALIDATOR.decide(Optional.empty(), List.of(H100, A100), request);
  }

  @Test
  void theFirstSpecStartsFromTheObservedGpus() {
    SpecDecision decision =
        firstSpecOfH100AndA100(
            new SpecRequest(
                null,
                null,
                List.of(new SpecRequest.Gpu(1, true, Map.of("3g.20gb", 2), null, null))));

    assertThat(decision).isInstanceOf(SpecDecision.Valid.class);
    SpecDraft draft = ((SpecDecision.Valid) decision).draft();
    assertThat(draft.gpus())
        .containsExactly(
            new GpuSpec(0, true, Map.of("7g.80gb", 1), 0, Map.of()),
            new GpuSpec(1, true, Map.of("3g.20gb", 2), 0, Map.of()));
    assertThat(draft.gate()).isEqualTo(GatePolicy.HOLD_UNTIL_APPLIED);
  }

  @Test
  void omittedFieldsOfAListedGpuKeepThePreviousSpec() {
    NodeSpec previous =
        new NodeSpec(
            "n",
            4,
            "580.95.05",
            List.of(new GpuSpec(0, false, Map.of(), 2, Map.of(0, "H100-10C"))),
            GatePolicy.OPEN);
    SpecDecision decision =
        VALIDATOR.decide(
            Optional.of(previous),
            List.of(H100),
            new SpecRequest(null, null, List.of(new SpecRequest.Gpu(0, null, null, 3, null))));

    SpecDraft draft = ((SpecDecision.Valid) decision).draft();
    assertThat(draft.gpus())
        .containsExactly(new GpuSpec(0, false, Map.of(), 3, Map.of(0, "H100-10C")));
    assertThat(draft.driverVersion()).isEqualTo("580.95.05");
    assertThat(draft.gate()).isEqualTo(GatePolicy.OPEN);
  }

  @Test
  void everyProblemIsListedWithItsField() {
    SpecDecision decision =
        firstSpecOfH100AndA100(
            new SpecRequest(
                " ",
                "sometimes",
                List.of(
                    new SpecRequest.Gpu(
                        0, false, null, 2, Map.of("0", "H100-1-10C", "x", "H100-10C")),
                    new SpecRequest.Gpu(1, false, null, 1, null))));

    assertThat(((SpecDecision.Invalid) decision).errors())
        .extracting(FieldError::field)
        .containsExactlyInAnyOrder(
            "gate", "driverVersion", "gpus[0].vgpuTypes.x", "gpus[0].vgpuTypes.0", "gpus[1].vfs");
  }

  @Test
  void everyRuleOneGpuBreaksIsListedWithItsOwnFieldPath() {
    ObservedGpu vgpuHost =
        new ObservedGpu(0, "0x233010DE", "NVIDIA H100 80GB HBM3", false, Map.of(), 16, 0);

    SpecDecision decision =
        VALIDATOR.decide(
            Optional.empty(),
            List.of(vgpuHost),
            new SpecRequest(
                null,
                null,
                List.of(
                    new SpecRequest.Gpu(
                        0,
                        true,
                        Map.of("3g.40gb", 3, "9g.99gb", 1),
                        20,
                        Map.of("0", "H100-10C", "1", "L4-4Q")))));

    assertThat(((SpecDecision.Invalid) decision).errors())
        .extracting(FieldError::field)
        .containsExactlyInAnyOrder(
            "gpus[0].instances.3g.40gb",
            "gpus[0].instances.9g.99gb",
            "gpus[0].vfs",
            "gpus[0].vgpuTypes.0",
            "gpus[0].vgpuTypes.1");
    assertThat(((SpecDecision.Invalid) decision).errors())
        .allSatisfy(
            e -> assertThat(e.message()).startsWith("GPU 0 (NVIDIA H100 80GB HBM3, 0x233010DE): "));
  }
}
