package io.fleetwave.controlplane.rollout.drain;

import io.quarkus.arc.DefaultBean;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * The default: nodes stay in service while they change; the device-plugin gate alone keeps new work
 * off GPUs that are being reconfigured. Kubernetes cordon and drain replaces this bean.
 */
@ApplicationScoped
@DefaultBean
public class NoDrain implements NodeDrain {
  @Override
  public String name() {
    return "none";
  }

  @Override
  public Uni<Void> takeOutOfService(List<String> nodes) {
    return Uni.createFrom().voidItem();
  }

  @Override
  public Uni<Void> returnToService(List<String> nodes) {
    return Uni.createFrom().voidItem();
  }
}
