package io.fleetwave.deploy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.List;
import java.util.Optional;

/**
 * One agent overlay rendered: its DaemonSet and the agent container in it. What every host kind
 * shares (ServiceAccount, ClusterRole, PriorityClass, Kafka client ConfigMap, NetworkPolicy) is not
 * in the overlay but in {@link #shared()}, applied once beside all overlays.
 */
record AgentOverlay(HostKind kind, Rendered rendered, DaemonSet daemonSet) {
  /** The kustomization of the objects every host kind's agents share. */
  static final String SHARED = "agent/shared";

  static Rendered shared() {
    return Kustomize.render(SHARED);
  }

  /** A hostPath volume as the agent container mounts it. */
  record HostPathMount(VolumeMount mount, HostPathVolumeSource hostPath) {
    boolean writable() {
      return !Boolean.TRUE.equals(mount.getReadOnly());
    }
  }

  static AgentOverlay of(HostKind kind) {
    Rendered rendered = Kustomize.render(kind.dir());
    List<DaemonSet> daemonSets = rendered.all(DaemonSet.class);
    if (daemonSets.size() != 1) {
      throw new AssertionError(
          kind.dir() + " should render exactly one DaemonSet, renders " + rendered.names());
    }
    return new AgentOverlay(kind, rendered, daemonSets.getFirst());
  }

  PodSpec pod() {
    return daemonSet.getSpec().getTemplate().getSpec();
  }

  Container agent() {
    return pod().getContainers().stream()
        .filter(c -> c.getName().equals("agent"))
        .findFirst()
        .orElseThrow(() -> new AssertionError(kind.dir() + ": no container named agent"));
  }

  Optional<EnvVar> env(String name) {
    return agent().getEnv().stream().filter(e -> e.getName().equals(name)).findFirst();
  }

  /** The literal value of an environment variable, failing when it is absent or not literal. */
  String envValue(String name) {
    EnvVar env =
        env(name).orElseThrow(() -> new AssertionError(kind.dir() + ": the agent has no " + name));
    if (env.getValue() == null) {
      throw new AssertionError(kind.dir() + ": " + name + " is not a literal value: " + env);
    }
    return env.getValue();
  }

  Optional<VolumeMount> mountAt(String path) {
    return agent().getVolumeMounts().stream()
        .filter(m -> m.getMountPath().equals(path))
        .findFirst();
  }

  Volume volume(String name) {
    return pod().getVolumes().stream()
        .filter(v -> v.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError(kind.dir() + ": no volume named " + name));
  }

  /** The volume mounted at a path, failing when nothing is mounted there. */
  Volume volumeAt(String path) {
    VolumeMount mount =
        mountAt(path)
            .orElseThrow(() -> new AssertionError(kind.dir() + ": nothing is mounted at " + path));
    return volume(mount.getName());
  }

  List<HostPathMount> hostPathMounts() {
    return agent().getVolumeMounts().stream()
        .filter(m -> volume(m.getName()).getHostPath() != null)
        .map(m -> new HostPathMount(m, volume(m.getName()).getHostPath()))
        .toList();
  }

  Optional<HostPathMount> hostPathMount(String hostPath) {
    return hostPathMounts().stream()
        .filter(m -> m.hostPath().getPath().equals(hostPath))
        .findFirst();
  }

  @Override
  public String toString() {
    return kind.overlay;
  }
}
