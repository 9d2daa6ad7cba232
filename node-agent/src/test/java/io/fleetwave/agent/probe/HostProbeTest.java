package io.fleetwave.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.host.HostTree;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One host tree per host kind without a live system bus: exact facts and exact reasons. */
class HostProbeTest {
  @TempDir Path dir;

  private HostFacts probe(HostTree tree) {
    return new HostProbe(HostProbeSettings.detectAll(tree.root())).probe();
  }

  @Test
  void talosIsReadOnlyWithoutSystemdAndTheDriverComesFromTheOsImageUnderUsrLocal() {
    HostTree tree =
        HostTree.talos(dir)
            .hostname("talos-gpu-1")
            .driver("/usr/local", "lib64")
            .devices("/", 2)
            .dir("var/lib/fleetwave");

    HostFacts facts = probe(tree);

    assertThat(facts.os().hostKind()).isEqualTo(HostKind.TALOS);
    assertThat(facts.os().osId()).isEqualTo("talos");
    assertThat(facts.os().osVersion()).isEqualTo("v1.13.0");
    assertThat(facts.os().kernel()).isEqualTo("6.18.29-talos");
    assertThat(facts.os().readOnlyRoot()).isTrue();
    assertThat(facts.os().systemd()).isFalse();
    assertThat(facts.os().driverRoot()).isEqualTo("/usr/local");
    assertThat(facts.os().deviceRoot()).isEqualTo("/");
    assertThat(facts.os().driverProvider()).isEqualTo(DriverProvider.OS_IMAGE);
    assertThat(facts.stateDirectory()).contains("/var/lib/fleetwave");
    assertThat(facts.nvmlLibrary()).contains(dir.resolve("usr/local/lib64/libnvidia-ml.so.1"));
    assertThat(facts.nvidiaSmi()).contains(dir.resolve("usr/local/bin/nvidia-smi"));
    assertThat(facts.reasons())
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                Map.entry("osId", "osId=talos: etc/os-release ID"),
                Map.entry("osVersion", "osVersion=v1.13.0: etc/os-release VERSION_ID"),
                Map.entry("kernel", "kernel=6.18.29-talos: proc/sys/kernel/osrelease"),
                Map.entry("hostname", "hostname=talos-gpu-1: etc/hostname"),
                Map.entry(
                    "readOnlyRoot",
                    "readOnlyRoot=true: proc/1/mountinfo mounts / (squashfs, ro,relatime)"),
                Map.entry("systemd", "systemd=false: run/systemd/system absent"),
                Map.entry("driverRoot", "driverRoot=/usr/local: found lib64/libnvidia-ml.so.1"),
                Map.entry(
                    "deviceRoot", "deviceRoot=/: found dev/nvidia0, dev/nvidia1, dev/nvidiactl"),
                Map.entry("hostKind", "hostKind=talos: os-release ID=talos"),
                Map.entry(
                    "driverProvider",
                    "driverProvider=os-image: talos ships the driver with the OS image"),
                Map.entry(
                    "stateDirectory",
                    "stateDirectory=/var/lib/fleetwave: exists and is writable")));
  }

  @Test
  void cosFindsLibrariesUnderHomeKubernetesAndDeviceNodesUnderDev() {
    HostTree tree =
        new HostTree(dir)
            .osRelease("cos", "121")
            .kernel("6.6.72+")
            .hostname("gke-pool-a-1")
            .mountinfo(
                "20 1 253:0 / / ro,relatime shared:1 - ext2 /dev/dm-0 ro\n"
                    + "31 20 8:1 /home /home rw,nosuid,nodev,noexec,relatime - ext4 /dev/sda1 rw\n")
            .driver("/home/kubernetes/bin/nvidia", "lib64")
            .devices("/", 1);

    HostFacts facts = probe(tree);

    assertThat(facts.os().hostKind()).isEqualTo(HostKind.COS);
    assertThat(facts.os().readOnlyRoot()).isTrue();
    assertThat(facts.os().systemd()).isFalse();
    assertThat(facts.os().driverRoot()).isEqualTo("/home/kubernetes/bin/nvidia");
    assertThat(facts.os().deviceRoot()).isEqualTo("/");
    assertThat(facts.os().driverProvider()).isEqualTo(DriverProvider.OS_IMAGE);
    assertThat(facts.stateDirectory()).isEmpty();
    assertThat(facts.reasons())
        .containsEntry(
            "driverRoot", "driverRoot=/home/kubernetes/bin/nvidia: found lib64/libnvidia-ml.so.1")
        .containsEntry("deviceRoot", "deviceRoot=/: found dev/nvidia0, dev/nvidiactl")
        .containsEntry("hostKind", "hostKind=cos: os-release ID=cos")
        .containsEntry(
            "readOnlyRoot", "readOnlyRoot=true: proc/1/mountinfo mounts / (ext2, ro,relatime)")
        .containsEntry(
            "stateDirectory",
            "stateDirectory=none: no writable directory among /var/lib/fleetwave (read-only root);"
                + " state lives in the event log");
  }

  @Test
  void driverContainerRootWinsOverTheHostAndDevicesStayOnTheHost() {
    HostTree tree =
        new HostTree(dir)
            .osRelease("ubuntu", "22.04")
            .kernel("5.15.0-1042-nvidia")
            .hostname("dgx-7")
            .mountinfo(HostTree.RW_ROOT_MOUNTINFO)
            .driver("/run/nvidia/driver", "usr/lib/x86_64-linux-gnu")
            .devices("/", 8);

    HostFacts facts = probe(tree);

    assertThat(facts.os().hostKind()).isEqualTo(HostKind.UBUNTU_DRIVER_CONTAINER);
    assertThat(facts.os().readOnlyRoot()).isFalse();
    assertThat(facts.os().driverRoot()).isEqualTo("/run/nvidia/driver");
    assertThat(facts.os().deviceRoot()).isEqualTo("/");
    assertThat(facts.os().driverProvider()).isEqualTo(DriverProvider.DRIVER_CONTAINER);
    assertThat(facts.nvidiaSmi()).contains(dir.resolve("run/nvidia/driver/bin/nvidia-smi"));
    assertThat(facts.reasons())
        .containsEntry(
            "driverRoot",
            "driverRoot=/run/nvidia/driver: found usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1")
        .containsEntry(
            "hostKind",
            "hostKind=ubuntu-driver-container: driver found in the driver container root /run/nvidia/driver")
        .containsEntry(
            "driverProvider",
            "driverProvider=driver-container: the driver root is the driver container root /run/nvidia/driver")
        .containsEntry(
            "readOnlyRoot", "readOnlyRoot=false: proc/1/mountinfo mounts / (ext4, rw,relatime)");
  }

  @Test
  void vgpuHostIsRecognisedBySriovManage() {
    HostTree tree =
        new HostTree(dir)
            .osRelease("ubuntu", "24.04")
            .kernel("6.8.0-45-generic")
            .hostname("kvm-1")
            .mountinfo(HostTree.RW_ROOT_MOUNTINFO)
            .driver("/", "usr/lib/x86_64-linux-gnu")
            .devices("/", 1)
            .executable("usr/lib/nvidia/sriov-manage", "#!/bin/sh\nexit 0\n")
            .pf("0000:3b:00.0", 16, 0);

    HostFacts facts = probe(tree);

    assertThat(facts.os().hostKind()).isEqualTo(HostKind.VGPU_HOST);
    assertThat(facts.os().driverProvider()).isEqualTo(DriverProvider.HOST_PACKAGE);
    assertThat(facts.reasons())
        .containsEntry("hostKind", "hostKind=vgpu-host: usr/lib/nvidia/sriov-manage present")
        .containsEntry(
            "driverRoot", "driverRoot=/: found usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1")
        .containsEntry(
            "driverProvider",
            "driverProvider=host-package: the driver is installed on the host under /");
  }

  @Test
  void vgpuHostIsRecognisedBySriovCapableNvidiaPfWithoutSriovManage() {
    HostTree tree =
        new HostTree(dir)
            .osRelease("ubuntu", "24.04")
            .kernel("6.8.0-45-generic")
            .mountinfo(HostTree.RW_ROOT_MOUNTINFO)
            .driver("/", "usr/lib/x86_64-linux-gnu")
            .pf("0000:3b:00.0", 16, 0);

    assertThat(probe(tree).reasons())
        .containsEntry(
            "hostKind",
            "hostKind=vgpu-host: SR-IOV capable NVIDIA PF 0000:3b:00.0 (sriov_totalvfs=16)");
  }

  @Test
  void explicitRootsWinOverDetection() {
    new HostTree(dir)
        .osRelease("ubuntu", "22.04")
        .kernel("5.15.0")
        .mountinfo(HostTree.RW_ROOT_MOUNTINFO)
        .driver("/run/nvidia/driver", "lib64")
        .driver("/opt/nvidia", "lib64")
        .devices("/opt/devs", 1);

    HostFacts facts =
        new HostProbe(
                HostProbeSettings.detectAll(dir)
                    .withDriverRoot("/opt/nvidia")
                    .withDeviceRoot("/opt/devs"))
            .probe();

    assertThat(facts.os().driverRoot()).isEqualTo("/opt/nvidia");
    assertThat(facts.os().deviceRoot()).isEqualTo("/opt/devs");
    assertThat(facts.reasons())
        .containsEntry(
            "driverRoot", "driverRoot=/opt/nvidia: set explicitly (found lib64/libnvidia-ml.so.1)")
        .containsEntry(
            "deviceRoot",
            "deviceRoot=/opt/devs: set explicitly (found dev/nvidia0, dev/nvidiactl)");
  }

  @Test
  void anExplicitNodeNameWinsOverTheHostsNameAndSaysSo() {
    new HostTree(dir)
        .osRelease("ubuntu", "22.04")
        .hostname("ip-10-0-3-7")
        .mountinfo(HostTree.RW_ROOT_MOUNTINFO);

    HostFacts facts =
        new HostProbe(HostProbeSettings.detectAll(dir).withNodeName("ip-10-0-3-7.ec2.internal"))
            .probe();

    assertThat(facts.hostname()).isEqualTo("ip-10-0-3-7.ec2.internal");
    assertThat(facts.reasons())
        .containsEntry(
            "hostname",
            "hostname=ip-10-0-3-7.ec2.internal: node name set explicitly (--node-name)");
  }

  @Test
  void noDriverAnywhereFallsBackToTheHostRootAndSaysSo() {
    HostTree tree =
        new HostTree(dir)
            .osRelease("ubuntu", "22.04")
            .kernel("5.15.0")
            .mountinfo(HostTree.RW_ROOT_MOUNTINFO);

    HostFacts facts = probe(tree);

    assertThat(facts.os().driverProvider()).isEqualTo(DriverProvider.NONE);
    assertThat(facts.nvmlLibrary()).isEqualTo(Optional.empty());
    assertThat(facts.reasons())
        .containsEntry(
            "driverRoot",
            "driverRoot=/: libnvidia-ml.so.1 not found under /run/nvidia/driver,"
                + " /home/kubernetes/bin/nvidia, /usr/local, /; using the host root")
        .containsEntry("deviceRoot", "deviceRoot=/: no dev/nvidia* found; using the host root");
  }

  @Test
  void hostFactsBecomeNodeRegisteredWithEveryReason() {
    HostTree tree = HostTree.talos(dir).hostname("talos-gpu-1").driver("/usr/local", "lib64");
    HostFacts facts = probe(tree);

    var event = facts.toNodeRegistered("580.159.03", "zone-a", Map.of());

    assertThat(event.hostKind()).isEqualTo(HostKind.TALOS);
    assertThat(event.driverRoot()).isEqualTo("/usr/local");
    assertThat(event.reasons()).isEqualTo(facts.reasons());
  }
}
