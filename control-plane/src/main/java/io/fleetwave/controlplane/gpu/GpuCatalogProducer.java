package io.fleetwave.controlplane.gpu;

import io.fleetwave.core.driver.DriverArtifactPolicy;
import io.fleetwave.core.driver.DriverArtifactResolver;
import io.fleetwave.events.gpu.GpuCatalog;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The GPU catalogue and the driver artifact rules, loaded once and shared. */
public class GpuCatalogProducer {

  @Produces
  @Singleton
  GpuCatalog catalog() {
    return GpuCatalog.bundled();
  }

  @Produces
  @Singleton
  DriverArtifactResolver driverArtifacts() {
    return new DriverArtifactResolver(DriverArtifactPolicy.nvidiaDefaults());
  }
}
