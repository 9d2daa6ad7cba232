package io.fleetwave.testfixtures.events;

import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.MigMode;
import java.util.List;

/**
 * {@link Gpu} (thirteen fields) by name instead of by position. {@link #of} starts from what a
 * healthy GPU of a catalogue model reports: MIG disabled where it is capable, no instance, every
 * SR-IOV function the model offers, none enabled; {@link #gpu} from a GPU with no model yet.
 */
public final class GpuBuilder {
  private int index;
  private String uuid;
  private String pciBusId;
  private String pciDeviceId;
  private String product;
  private long memoryMiB;
  private boolean migCapable;
  private MigMode migMode;
  private MigMode migModePending;
  private List<GpuInstance> instances = List.of();
  private int vfsTotal;
  private int vfsEnabled;
  private GpuHealth health = GpuHealth.HEALTHY;

  private GpuBuilder() {}

  /**
   * GPU {@code index} of a node, healthy, without MIG or SR-IOV, at bus {@code 00000000:<0x18 +
   * index>:00.0}; its model (device id, product, memory) is the test's to set.
   */
  public static GpuBuilder gpu(int index) {
    GpuBuilder b = new GpuBuilder();
    b.index = index;
    b.uuid = "GPU-" + index;
    b.pciBusId = String.format("00000000:%02X:00.0", 0x18 + index);
    return b.migMode(MigMode.UNSUPPORTED);
  }

  /** GPU {@code index} of a node, of that model; uuid {@code GPU-<short name>-<index>}. */
  public static GpuBuilder of(GpuModel model, int index) {
    GpuBuilder b = gpu(index).uuid("GPU-" + model.shortName() + "-" + index);
    b.pciDeviceId = model.pciDeviceId();
    b.product = model.product();
    b.memoryMiB = model.memoryMiB();
    b.migCapable = model.migCapable();
    return b.migMode(model.migCapable() ? MigMode.DISABLED : MigMode.UNSUPPORTED)
        .vfsTotal(model.sriovVfs());
  }

  /** A copy of {@code gpu}, to change a field or two. */
  public static GpuBuilder from(Gpu gpu) {
    GpuBuilder b = new GpuBuilder();
    b.index = gpu.index();
    b.uuid = gpu.uuid();
    b.pciBusId = gpu.pciBusId();
    b.pciDeviceId = gpu.pciDeviceId();
    b.product = gpu.product();
    b.memoryMiB = gpu.memoryMiB();
    b.migCapable = gpu.migCapable();
    b.migMode = gpu.migMode();
    b.migModePending = gpu.migModePending();
    b.instances = gpu.instances();
    b.vfsTotal = gpu.vfsTotal();
    b.vfsEnabled = gpu.vfsEnabled();
    b.health = gpu.health();
    return b;
  }

  public GpuBuilder index(int index) {
    this.index = index;
    return this;
  }

  public GpuBuilder uuid(String uuid) {
    this.uuid = uuid;
    return this;
  }

  public GpuBuilder pciBusId(String pciBusId) {
    this.pciBusId = pciBusId;
    return this;
  }

  public GpuBuilder pciDeviceId(String pciDeviceId) {
    this.pciDeviceId = pciDeviceId;
    return this;
  }

  public GpuBuilder product(String product) {
    this.product = product;
    return this;
  }

  public GpuBuilder memoryMiB(long memoryMiB) {
    this.memoryMiB = memoryMiB;
    return this;
  }

  public GpuBuilder migCapable(boolean migCapable) {
    this.migCapable = migCapable;
    return this;
  }

  /** The current MIG mode, and the pending one with it (nothing pending). */
  public GpuBuilder migMode(MigMode mode) {
    this.migMode = mode;
    this.migModePending = mode;
    return this;
  }

  /** The mode after the next GPU reset, where it differs from {@link #migMode}. */
  public GpuBuilder migModePending(MigMode pending) {
    this.migModePending = pending;
    return this;
  }

  public GpuBuilder instances(List<GpuInstance> instances) {
    this.instances = instances;
    return this;
  }

  public GpuBuilder vfsTotal(int vfsTotal) {
    this.vfsTotal = vfsTotal;
    return this;
  }

  public GpuBuilder vfsEnabled(int vfsEnabled) {
    this.vfsEnabled = vfsEnabled;
    return this;
  }

  public GpuBuilder health(GpuHealth health) {
    this.health = health;
    return this;
  }

  /** The GPU; the record's own checks apply (e.g. more VFs enabled than it has is refused). */
  public Gpu build() {
    return new Gpu(
        index,
        uuid,
        pciBusId,
        pciDeviceId,
        product,
        memoryMiB,
        migCapable,
        migMode,
        migModePending,
        instances,
        vfsTotal,
        vfsEnabled,
        health);
  }
}
