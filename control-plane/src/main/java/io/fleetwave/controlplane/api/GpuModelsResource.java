package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.security.Roles;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.gpu.GpuModel;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * The GPU catalogue as the control plane knows it: per model its MIG geometry (compute and memory
 * slices, profiles and where they may start) and vGPU types; the dashboard draws MIG placements on
 * it.
 */
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
@Path("/api/v1/gpu-models")
@Produces(MediaType.APPLICATION_JSON)
public class GpuModelsResource {
  private final GpuCatalog catalog;

  public GpuModelsResource(GpuCatalog catalog) {
    this.catalog = catalog;
  }

  @GET
  @Operation(
      summary = "The GPU models Fleetwave knows: PCI ids, memory, MIG geometry, vGPU types",
      description = "mig is null for a model without MIG; a profile's memorySlices is its size.")
  public List<GpuModel> list() {
    return catalog.models();
  }
}
