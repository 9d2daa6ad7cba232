package io.fleetwave.core.driver;

import java.util.Set;

/**
 * Which driver images exist for this fleet. Data, not code: the defaults follow NVIDIA's published
 * images (GPU Operator platform support) and can be overridden from configuration.
 *
 * @param repository image repository, e.g. {@code nvcr.io/nvidia/driver}
 * @param precompiled whether driver containers use precompiled images (ClusterPolicy {@code
 *     usePrecompiled}); NVIDIA tags those by driver branch and kernel
 * @param containerOsTags OS tags that have driver container images
 * @param precompiledOsTags OS tags that have precompiled images
 */
public record DriverArtifactPolicy(
    String repository,
    boolean precompiled,
    Set<String> containerOsTags,
    Set<String> precompiledOsTags) {

  public DriverArtifactPolicy {
    containerOsTags = Set.copyOf(containerOsTags);
    precompiledOsTags = Set.copyOf(precompiledOsTags);
  }

  public static DriverArtifactPolicy nvidiaDefaults() {
    return new DriverArtifactPolicy(
        "nvcr.io/nvidia/driver",
        false,
        Set.of(
            "ubuntu20.04",
            "ubuntu22.04",
            "ubuntu24.04",
            "rhel8",
            "rhel9",
            "rhel10",
            "rocky8",
            "rocky9",
            "ol8",
            "ol9"),
        Set.of("ubuntu22.04", "ubuntu24.04"));
  }

  public DriverArtifactPolicy withPrecompiled(boolean value) {
    return new DriverArtifactPolicy(repository, value, containerOsTags, precompiledOsTags);
  }
}
