package io.fleetwave.controlplane.spec;

import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of {@code PUT /api/v1/nodes/{name}/spec}. GPUs not listed keep their desired (or, for a
 * node's first spec, observed) state; within a listed GPU an omitted field keeps its value too.
 */
@Schema(description = "A node's desired spec; GPUs not listed keep their current state")
public record SpecRequest(
    @Schema(
            description =
                "driver version wanted; null or omitted keeps the current desired one (none: the"
                    + " driver is left alone)",
            nullable = true)
        String driverVersion,
    @Schema(
            description = "device-plugin gate policy: hold-until-applied (default) or open",
            nullable = true)
        String gate,
    @Schema(description = "per-GPU desired state, at most one entry per index") List<Gpu> gpus) {

  @Schema(description = "The desired state of one GPU")
  public record Gpu(
      @Schema(description = "GPU index on the node", required = true) Integer index,
      @Schema(description = "MIG mode wanted on", nullable = true) Boolean migEnabled,
      @Schema(
              description = "GPU instances by MIG profile, e.g. {\"1g.10gb\": 2, \"3g.40gb\": 1}",
              nullable = true)
          Map<String, Integer> instances,
      @Schema(description = "SR-IOV virtual functions to enable (0: off)", nullable = true)
          Integer vfs,
      @Schema(
              description =
                  "vGPU type name per VF index (\"0\": \"H100-1-10C\"); VF indexes below vfs",
              nullable = true)
          Map<String, String> vgpuTypes) {}
}
