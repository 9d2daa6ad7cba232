package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.GpuBuilder;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The inventory digest decides whether the projection writes an inventory's rows: equal for equal
 * rows, and different whenever any written column differs, or a value moves from one column to the
 * next.
 */
class InventoryDigestTest {
  private static final Gpu BASE = Events.gpu(0, Events.H100, MigMode.ENABLED);

  @Test
  void equalInventoriesHaveEqualDigests() {
    assertThat(InventoryRows.digest(Events.inventory(Events.H100, 4, MigMode.ENABLED)))
        .isEqualTo(InventoryRows.digest(Events.inventory(Events.H100, 4, MigMode.ENABLED)))
        .hasSize(64);
  }

  @Test
  void everyWrittenColumnChangesTheDigest() {
    List<UnaryOperator<GpuBuilder>> changes =
        List.of(
            b -> b.index(1),
            b -> b.uuid("GPU-other"),
            b -> b.pciBusId("00000000:99:00.0"),
            b -> b.pciDeviceId(Events.H200),
            b -> b.product("NVIDIA H200"),
            b -> b.memoryMiB(1),
            b -> b.migCapable(false).migMode(MigMode.UNSUPPORTED).instances(List.of()),
            b -> b.migMode(MigMode.DISABLED).instances(List.of()),
            b -> b.migModePending(MigMode.DISABLED),
            b -> b.vfsTotal(16),
            b -> b.vfsTotal(8).vfsEnabled(4),
            b -> b.health(GpuHealth.DEGRADED),
            b -> b.instances(List.of(new GpuInstance("7g.80gb", 0, 8))),
            b -> b.instances(List.of(new GpuInstance("3g.40gb", 0, 4))),
            b ->
                b.instances(
                    List.of(new GpuInstance("3g.40gb", 0, 4), new GpuInstance("3g.40gb", 4, 3))));
    Set<String> digests = new HashSet<>();
    digests.add(digest(BASE));
    for (UnaryOperator<GpuBuilder> change : changes) {
      digests.add(digest(change.apply(GpuBuilder.from(BASE)).build()));
    }
    assertThat(digests).as("one digest per inventory").hasSize(changes.size() + 1);
  }

  @Test
  void aValueMovedBetweenColumnsChangesTheDigest() {
    Gpu one = GpuBuilder.from(BASE).uuid("GPU-ab").pciBusId("c").build();
    Gpu other = GpuBuilder.from(BASE).uuid("GPU-a").pciBusId("bc").build();

    assertThat(digest(one)).isNotEqualTo(digest(other));
  }

  @Test
  void theSameGpusInAnotherOrderAreWrittenAgain() {
    Gpu first = Events.gpu(0, Events.H100, MigMode.ENABLED);
    Gpu second = Events.gpu(1, Events.H100, MigMode.DISABLED);

    assertThat(InventoryRows.digest(new GpuInventoryReported(List.of(first, second))))
        .isNotEqualTo(InventoryRows.digest(new GpuInventoryReported(List.of(second, first))));
  }

  private static String digest(Gpu gpu) {
    return InventoryRows.digest(new GpuInventoryReported(List.of(gpu)));
  }
}
