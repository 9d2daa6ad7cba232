package io.fleetwave.agent.probe;

import io.fleetwave.agent.host.DriverLocator;
import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.host.HostPaths;
import io.fleetwave.agent.host.MountInfo;
import io.fleetwave.agent.host.OsRelease;
import io.fleetwave.agent.hostclients.SystemBus;
import io.fleetwave.agent.hostclients.SystemBusUnavailableException;
import io.fleetwave.agent.sriov.PciSysfs;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.HostOs;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Detects the facts of the host under a host root, each with the reason it was chosen: nothing is a
 * flag the user must get right (seed 000), nothing is written, and the only call into a host
 * service (the system bus) is bounded.
 */
public final class HostProbe {
  static final String DRIVER_CONTAINER_ROOT = "/run/nvidia/driver";
  static final String SYSTEMD_DIR = "run/systemd/system";
  static final String SYSTEM_BUS_SOCKET = "run/dbus/system_bus_socket";
  static final String SRIOV_MANAGE = "usr/lib/nvidia/sriov-manage";

  private final HostProbeSettings settings;
  private final Path root;

  public HostProbe(HostProbeSettings settings) {
    this.settings = settings;
    this.root = settings.hostRoot();
  }

  public HostFacts probe() {
    Map<String, String> reasons = new LinkedHashMap<>();

    OsFacts os = osRelease();
    reasons.put("osId", os.idReason());
    reasons.put("osVersion", os.versionReason());

    String kernel = kernel(reasons);
    String hostname = hostname(reasons);
    boolean readOnly = readOnlyRoot(reasons);
    boolean systemd = systemd(reasons);

    DriverLocator locator = new DriverLocator(root);
    DriverLocator.Located driver = locator.driverRoot(settings.driverRoot());
    reasons.put("driverRoot", driver.reason());
    DriverLocator.Located device = locator.deviceRoot(settings.deviceRoot(), driver.root());
    reasons.put("deviceRoot", device.reason());

    HostKind kind = hostKind(os.id(), driver.root(), reasons);
    DriverProvider provider = driverProvider(kind, os.id(), driver, reasons);
    Optional<String> stateDir = stateDirectory(readOnly, reasons);

    return new HostFacts(
        root,
        hostname,
        new HostOs(
            kind,
            os.id(),
            os.version(),
            kernel,
            readOnly,
            systemd,
            driver.root(),
            device.root(),
            provider),
        stateDir,
        driver.nvmlRelative().map(rel -> HostPaths.resolve(root, driver.root()).resolve(rel)),
        locator.nvidiaSmi(driver.root()),
        reasons);
  }

  private record OsFacts(String id, String version, String idReason, String versionReason) {}

  private OsFacts osRelease() {
    for (String file : List.of("etc/os-release", "usr/lib/os-release")) {
      Optional<String> text = read(root.resolve(file));
      if (text.isPresent()) {
        OsRelease release = OsRelease.parse(text.get());
        String id = release.get("ID").orElse("linux");
        String version = release.get("VERSION_ID").orElse("");
        return new OsFacts(
            id,
            version,
            "osId="
                + id
                + ": "
                + file
                + (release.get("ID").isPresent() ? " ID" : " has no ID; os-release default"),
            "osVersion="
                + version
                + ": "
                + file
                + (release.get("VERSION_ID").isPresent() ? " VERSION_ID" : " has no VERSION_ID"));
      }
    }
    return new OsFacts(
        "linux",
        "",
        "osId=linux: no etc/os-release or usr/lib/os-release; os-release default",
        "osVersion=: no os-release");
  }

  private String kernel(Map<String, String> reasons) {
    Optional<String> fromProc = read(root.resolve("proc/sys/kernel/osrelease")).map(String::strip);
    if (fromProc.isPresent() && !fromProc.get().isEmpty()) {
      reasons.put("kernel", "kernel=" + fromProc.get() + ": proc/sys/kernel/osrelease");
      return fromProc.get();
    }
    // A container shares the host's kernel, so uname (os.version) is the host kernel.
    String uname = System.getProperty("os.version");
    reasons.put(
        "kernel", "kernel=" + uname + ": uname (no proc/sys/kernel/osrelease under the host root)");
    return uname;
  }

  /**
   * The node's name, the key of all its events: the name it was given (on Kubernetes the Node's
   * name, from the pod's spec.nodeName), else the host's etc/hostname, else
   * proc/sys/kernel/hostname (the agent's own UTS namespace: the host's only with hostNetwork),
   * else the agent's host name.
   */
  private String hostname(Map<String, String> reasons) {
    if (settings.nodeName().isPresent()) {
      String name = settings.nodeName().get();
      reasons.put("hostname", "hostname=" + name + ": node name set explicitly (--node-name)");
      return name;
    }
    for (String file : List.of("etc/hostname", "proc/sys/kernel/hostname")) {
      Optional<String> name = read(root.resolve(file)).map(String::strip).filter(s -> !s.isEmpty());
      if (name.isPresent()) {
        reasons.put("hostname", "hostname=" + name.get() + ": " + file);
        return name.get();
      }
    }
    String name;
    try {
      name = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      name = "unknown";
    }
    reasons.put("hostname", "hostname=" + name + ": the agent's own host name");
    return name;
  }

  private boolean readOnlyRoot(Map<String, String> reasons) {
    for (String file : List.of("proc/1/mountinfo", "proc/self/mountinfo")) {
      Optional<String> text = read(root.resolve(file));
      Optional<MountInfo.Mount> mount = text.flatMap(t -> MountInfo.parse(t).covering("/"));
      if (mount.isPresent()) {
        return readOnlyVerdict(file + " mounts " + mount.get().describe(), mount.get(), reasons);
      }
    }
    Optional<String> own = read(settings.agentMountInfo());
    String hostRootPath = realPath(root);
    Optional<MountInfo.Mount> mount = own.flatMap(t -> MountInfo.parse(t).covering(hostRootPath));
    if (mount.isPresent()) {
      return readOnlyVerdict(
          settings.agentMountInfo()
              + ": host root "
              + hostRootPath
              + " is on "
              + mount.get().describe(),
          mount.get(),
          reasons);
    }
    reasons.put(
        "readOnlyRoot",
        "readOnlyRoot=true: no mountinfo readable; assumed read-only so nothing is written");
    return true;
  }

  private static boolean readOnlyVerdict(
      String evidence, MountInfo.Mount mount, Map<String, String> reasons) {
    reasons.put("readOnlyRoot", "readOnlyRoot=" + mount.readOnly() + ": " + evidence);
    return mount.readOnly();
  }

  private boolean systemd(Map<String, String> reasons) {
    if (!Files.isDirectory(root.resolve(SYSTEMD_DIR))) {
      reasons.put("systemd", "systemd=false: " + SYSTEMD_DIR + " absent");
      return false;
    }
    Path socket = root.resolve(SYSTEM_BUS_SOCKET);
    if (!Files.exists(socket)) {
      reasons.put(
          "systemd",
          "systemd=false: " + SYSTEMD_DIR + " present but " + SYSTEM_BUS_SOCKET + " absent");
      return false;
    }
    try (SystemBus bus = SystemBus.connect(socket, settings.busTimeout())) {
      String id = bus.busId();
      reasons.put(
          "systemd",
          "systemd=true: " + SYSTEMD_DIR + " present; the system bus answered GetId (" + id + ")");
      return true;
    } catch (SystemBusUnavailableException e) {
      reasons.put("systemd", "systemd=false: " + e.getMessage());
      return false;
    }
  }

  private HostKind hostKind(String osId, String driverRoot, Map<String, String> reasons) {
    HostKind kind;
    String why;
    if (osId.equals("talos")) {
      kind = HostKind.TALOS;
      why = "os-release ID=talos";
    } else if (osId.equals("cos")) {
      kind = HostKind.COS;
      why = "os-release ID=cos";
    } else if (driverRoot.equals(DRIVER_CONTAINER_ROOT)) {
      kind = HostKind.UBUNTU_DRIVER_CONTAINER;
      why = "driver found in the driver container root " + DRIVER_CONTAINER_ROOT;
    } else if (Files.isRegularFile(root.resolve(SRIOV_MANAGE))) {
      kind = HostKind.VGPU_HOST;
      why = SRIOV_MANAGE + " present";
    } else {
      List<PciSysfs.PhysicalFunction> pfs = new PciSysfs(root).sriovCapableNvidiaFunctions();
      if (!pfs.isEmpty()) {
        kind = HostKind.VGPU_HOST;
        why =
            "SR-IOV capable NVIDIA PF "
                + pfs.getFirst().bdf()
                + " (sriov_totalvfs="
                + pfs.getFirst().totalVfs()
                + ")";
      } else {
        kind = HostKind.UBUNTU;
        why = "os-release ID=" + osId + ", no driver container, no SR-IOV capable NVIDIA PF";
      }
    }
    reasons.put("hostKind", "hostKind=" + kind.wireName() + ": " + why);
    return kind;
  }

  private static DriverProvider driverProvider(
      HostKind kind, String osId, DriverLocator.Located driver, Map<String, String> reasons) {
    DriverProvider provider;
    String why;
    if (kind == HostKind.TALOS || kind == HostKind.COS) {
      provider = DriverProvider.OS_IMAGE;
      why = osId + " ships the driver with the OS image";
    } else if (driver.nvmlRelative().isEmpty()) {
      provider = DriverProvider.NONE;
      why = "no " + DriverLocator.NVML + " found";
    } else if (driver.root().equals(DRIVER_CONTAINER_ROOT)) {
      provider = DriverProvider.DRIVER_CONTAINER;
      why = "the driver root is the driver container root " + DRIVER_CONTAINER_ROOT;
    } else {
      provider = DriverProvider.HOST_PACKAGE;
      why = "the driver is installed on the host under " + driver.root();
    }
    reasons.put("driverProvider", "driverProvider=" + provider.wireName() + ": " + why);
    return provider;
  }

  private Optional<String> stateDirectory(boolean readOnlyRoot, Map<String, String> reasons) {
    for (String candidate : settings.stateDirectories()) {
      Path dir = HostPaths.resolve(root, candidate);
      // Access checks only: the probe never writes to find out.
      if (Files.isDirectory(dir) && Files.isWritable(dir)) {
        reasons.put("stateDirectory", "stateDirectory=" + candidate + ": exists and is writable");
        return Optional.of(candidate);
      }
    }
    reasons.put(
        "stateDirectory",
        "stateDirectory=none: no writable directory among "
            + String.join(", ", settings.stateDirectories())
            + (readOnlyRoot ? " (read-only root)" : "")
            + "; state lives in the event log");
    return Optional.empty();
  }

  private static Optional<String> read(Path file) {
    try {
      return Files.isRegularFile(file) ? Optional.of(Files.readString(file)) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static String realPath(Path path) {
    try {
      return path.toRealPath().toString();
    } catch (IOException e) {
      return path.toAbsolutePath().toString();
    }
  }
}
