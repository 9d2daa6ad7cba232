package io.fleetwave.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.events.gpu.GpuCatalog;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A driver installed on simulated GPUs, and the boots that follow. */
class SimulatedGpuDriverTest {
  private final SimulatedGpuBackend gpus =
      new SimulatedGpuBackend(
          "node-1",
          "570.172.08",
          List.of(GpuCatalog.bundled().find("0x233010DE").orElseThrow()),
          false);

  @Test
  void anInstalledDriverIsReportedAndListenersHearOfIt() {
    AtomicInteger changes = new AtomicInteger();
    gpus.onChange(changes::incrementAndGet);
    gpus.installDriver("580.95.05");
    assertThat(gpus.driverVersion()).isEqualTo("580.95.05");
    assertThat(changes).hasValue(1);
  }

  @Test
  void aBlankVersionIsRefusedAndChangesNothing() {
    assertThatThrownBy(() -> gpus.installDriver(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("driver version must not be blank");
    assertThat(gpus.driverVersion()).isEqualTo("570.172.08");
  }

  @Test
  void everyRebootIsCountedAndChangesTheBootId() {
    String first = gpus.bootId();
    assertThat(gpus.bootCount()).isZero();
    gpus.reboot();
    gpus.reboot();
    assertThat(gpus.bootCount()).isEqualTo(2);
    assertThat(gpus.bootId()).isNotEqualTo(first);
  }
}
