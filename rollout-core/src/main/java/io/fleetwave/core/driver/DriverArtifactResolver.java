package io.fleetwave.core.driver;

import io.fleetwave.events.gpu.GpuModel;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Decides how a driver version reaches one node, by its driver provider, or why it cannot: the
 * version is older than a GPU on the node needs ({@link GpuModel#minDriverVersion()}), or no image
 * exists for the node's OS or kernel.
 */
public final class DriverArtifactResolver {
  private final DriverArtifactPolicy policy;

  public DriverArtifactResolver(DriverArtifactPolicy policy) {
    this.policy = policy;
  }

  public DriverResolution resolve(
      NodeDriverFacts node, Collection<GpuModel> gpuModels, DriverVersion target) {
    List<String> tooOld = new ArrayList<>();
    for (GpuModel model : gpuModels.stream().distinct().toList()) {
      if (model.minDriverVersion() != null
          && target.isOlderThan(DriverVersion.parse(model.minDriverVersion()))) {
        tooOld.add(model.shortName() + " needs >= " + model.minDriverVersion());
      }
    }
    if (!tooOld.isEmpty()) {
      return new DriverResolution.Unservable(
          "driver " + target + " cannot serve this node's GPUs: " + String.join(", ", tooOld));
    }
    if (node.hostKind() == HostKind.TALOS
        || node.hostKind() == HostKind.COS
        || node.driverProvider() == DriverProvider.OS_IMAGE) {
      return resolved(new DriverArtifact.OsImage(target.toString(), node.osId(), node.osVersion()));
    }
    return switch (node.driverProvider()) {
      case DRIVER_CONTAINER -> container(node, target);
      case HOST_PACKAGE -> hostPackage(node, target);
      case NONE ->
          new DriverResolution.Unservable(
              "no driver provider was detected on the node, so there is nothing to upgrade");
      case OS_IMAGE -> throw new IllegalStateException("handled above");
    };
  }

  /** A driver container image, precompiled for the node's kernel where the policy says so. */
  private DriverResolution container(NodeDriverFacts node, DriverVersion target) {
    String osTag = DriverImageTags.osTag(node.osId(), node.osVersion());
    boolean precompiled = policy.precompiled();
    Set<String> published = precompiled ? policy.precompiledOsTags() : policy.containerOsTags();
    if (!published.contains(osTag)) {
      return new DriverResolution.Unservable(
          "no "
              + (precompiled ? "precompiled driver image" : "driver container image")
              + " for "
              + osTag
              + " (published for "
              + published.stream().sorted().toList()
              + ")");
    }
    String tag =
        precompiled
            ? DriverImageTags.precompiledTag(target, node.kernel(), osTag)
            : DriverImageTags.containerTag(target, osTag);
    return resolved(
        new DriverArtifact.ContainerImage(
            target.toString(), policy.repository() + ":" + tag, tag, precompiled));
  }

  private static DriverResolution hostPackage(NodeDriverFacts node, DriverVersion target) {
    String os = node.osId().toLowerCase(Locale.ROOT);
    return switch (os) {
      case "ubuntu", "debian" ->
          resolved(
              new DriverArtifact.HostPackage(
                  target.toString(),
                  "nvidia-driver-" + target.branch() + "-server",
                  target.toString()));
      case "rhel", "rocky", "ol", "almalinux", "centos" ->
          resolved(
              new DriverArtifact.HostPackage(
                  target.toString(), "nvidia-driver", target.toString()));
      default ->
          new DriverResolution.Unservable(
              "no driver package source known for " + node.osId() + " " + node.osVersion());
    };
  }

  private static DriverResolution resolved(DriverArtifact artifact) {
    return new DriverResolution.Resolved(artifact);
  }
}
