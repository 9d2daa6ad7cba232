package io.fleetwave.events.command;

import static io.fleetwave.events.command.Fixtures.ISSUED;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ResetGpuTest {
  @Test
  void oneShotCommandsNeedAnExpiry() {
    assertThatThrownBy(() -> new ResetGpu(0, 1, ISSUED, null))
        .hasMessageContaining("missing required field 'expiresAt'");
  }
}
