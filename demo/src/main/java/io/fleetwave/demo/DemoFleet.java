package io.fleetwave.demo;

import io.fleetwave.agent.desired.SpecFollowing;
import io.fleetwave.controlplane.security.CommandSigning;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.fleet.FleetFile;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The demo's simulated fleet: with {@code fleetwave.demo.enabled=true} (the demo's default: {@link
 * DemoMain}) it runs the simulated agents of {@code fleetwave.demo.fleet} (default: the bundled
 * demo fleet) in this JVM against {@code kafka.bootstrap.servers}, and stops them on shutdown.
 * {@code fleetwave.demo.apply-delay} (default 0) makes each simulated node take that long before it
 * starts converging a new spec (the rollout benchmark's per-node apply time). Off by default, so
 * tests start agents only when they ask for them.
 */
@ApplicationScoped
public class DemoFleet {
  static final String ENABLED = "fleetwave.demo.enabled";
  private static final Logger LOG = Logger.getLogger(DemoFleet.class);

  private final boolean enabled;
  private final Optional<String> fleetFile;
  private final Duration heartbeatInterval;
  private final Duration applyDelay;
  private final String bootstrapServers;
  private final CommandSigning signing;
  private volatile SimulatedFleet fleet;

  public DemoFleet(
      @ConfigProperty(name = ENABLED, defaultValue = "false") boolean enabled,
      @ConfigProperty(name = "fleetwave.demo.fleet") Optional<String> fleetFile,
      @ConfigProperty(name = "fleetwave.demo.heartbeat-interval", defaultValue = "10s")
          Duration heartbeatInterval,
      @ConfigProperty(name = "fleetwave.demo.apply-delay", defaultValue = "0s") Duration applyDelay,
      @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers,
      CommandSigning signing) {
    this.enabled = enabled;
    this.fleetFile = fleetFile;
    this.heartbeatInterval = heartbeatInterval;
    this.applyDelay = applyDelay;
    this.bootstrapServers = bootstrapServers;
    this.signing = signing;
  }

  /** The running simulated fleet; empty outside demo mode. */
  public Optional<SimulatedFleet> fleet() {
    return Optional.ofNullable(fleet);
  }

  void onStart(@Observes StartupEvent event) {
    if (enabled) {
      FleetFile file =
          fleetFile.map(Path::of).map(FleetFile::read).orElseGet(FleetFile::bundledDemo);
      // The simulated agents verify specs and commands with this control plane's key; demo mode
      // always has one (CommandSigning generates it when none is configured).
      fleet =
          SimulatedFleet.start(
              file,
              SimulatedFleet.Settings.of(bootstrapServers, heartbeatInterval),
              SpecFollowing.of(signing.verifier().orElseThrow()).withApplyDelay(applyDelay),
              null);
      LOG.infof(
          "demo fleet: %d simulated nodes from %s, heartbeat every %s, apply delay %s",
          fleet.nodes().size(),
          fleetFile.orElse("the bundled demo fleet"),
          heartbeatInterval,
          applyDelay);
    }
  }

  void onStop(@Observes ShutdownEvent event) {
    if (fleet != null) {
      fleet.close();
      fleet = null;
    }
  }
}
