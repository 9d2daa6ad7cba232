package io.fleetwave.controlplane.embedded;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The seam for the demo's simulated fleet: with {@code fleetwave.demo.enabled=true} (set by {@code
 * ./fleetwave demo}) it is meant to start the simulated agents of {@code fleetwave.demo.fleet} (or
 * the bundled fleet) against {@code kafka.bootstrap.servers}, and stop them on shutdown.
 *
 * <p>NOT WIRED YET: the simulated fleet (io.fleetwave.agent.sim.SimulatedFleet, node-agent) is
 * being written in parallel; the lead plugs it into {@link #start} and {@link #stop}. Until then
 * this only logs that no agents run.
 */
@ApplicationScoped
public class DemoFleet {
  private static final Logger LOG = Logger.getLogger(DemoFleet.class);

  private final boolean enabled;
  private final Optional<String> fleetFile;
  private final String bootstrapServers;

  public DemoFleet(
      @ConfigProperty(name = "fleetwave.demo.enabled", defaultValue = "false") boolean enabled,
      @ConfigProperty(name = "fleetwave.demo.fleet") Optional<String> fleetFile,
      @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers) {
    this.enabled = enabled;
    this.fleetFile = fleetFile;
    this.bootstrapServers = bootstrapServers;
  }

  void onStart(@Observes StartupEvent event) {
    if (enabled) {
      start();
    }
  }

  void onStop(@Observes ShutdownEvent event) {
    if (enabled) {
      stop();
    }
  }

  void start() {
    // Lead: start SimulatedFleet here with fleetFile (or the bundled fleet) and bootstrapServers.
    LOG.warnf(
        "demo fleet requested (fleet file: %s, Kafka: %s) but the simulated fleet is not wired in"
            + " yet: no agents are running",
        fleetFile.orElse("<bundled>"), bootstrapServers);
  }

  void stop() {
    // Lead: stop the SimulatedFleet started in start().
  }
}
