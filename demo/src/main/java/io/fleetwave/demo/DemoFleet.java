package io.fleetwave.demo;

import io.fleetwave.agent.desired.SpecFollowing;
import io.fleetwave.controlplane.identity.JoinTokenCreated;
import io.fleetwave.controlplane.identity.JoinTokenRequest;
import io.fleetwave.controlplane.identity.NodeEnrolment;
import io.fleetwave.controlplane.security.CommandSigning;
import io.fleetwave.simulator.FleetEnrolment;
import io.fleetwave.simulator.SimulatedFleet;
import io.fleetwave.simulator.fleet.FleetFile;
import io.fleetwave.simulator.fleet.NodeSpec;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.HttpServer;
import io.quarkus.vertx.http.HttpServerStart;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.enterprise.inject.Instance;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The demo's simulated fleet: with {@code fleetwave.demo.enabled=true} (the demo's default: {@link
 * DemoMain}) it runs the simulated agents of {@code fleetwave.demo.fleet} (default: the bundled
 * demo fleet) in this JVM against {@code kafka.bootstrap.servers}, and stops them on shutdown.
 * {@code fleetwave.demo.apply-delay} (default 0) makes each simulated node take that long before it
 * starts converging a new spec (the rollout benchmark's per-node apply time). Off by default, so
 * tests start agents only when they ask for them.
 *
 * <p>The simulated nodes are enrolled agents, as the control plane requires by default: each makes
 * its key and enrolls it through this control plane's enrolment API, with a join token the demo
 * mints for it in process as its admin ({@link #DEMO_ADMIN}), once the HTTP server listens.
 */
@ApplicationScoped
public class DemoFleet {
  static final String ENABLED = "fleetwave.demo.enabled";
  private static final Logger LOG = Logger.getLogger(DemoFleet.class);

  /** Who the join tokens of the demo's nodes are created by. */
  static final String DEMO_ADMIN = "fleetwave-demo";

  private static final Duration JOIN_TOKEN_LIFETIME = Duration.ofMinutes(10);
  private static final Duration MINT_BOUND = Duration.ofSeconds(10);

  /**
   * How long after the first HTTP server's start Quarkus may take to record the random port's
   * address (see {@link ServerAddress}): the server that records it is already bound.
   */
  private static final Duration ADDRESS_BOUND = Duration.ofSeconds(30);

  private final boolean enabled;
  private final Optional<String> fleetFile;
  private final Duration heartbeatInterval;
  private final Duration applyDelay;
  private final String bootstrapServers;
  private final CommandSigning signing;
  private final NodeEnrolment enrolment;
  private final Instance<HttpServer> http;
  private final ServerAddress listening = new ServerAddress(ADDRESS_BOUND);
  private volatile SimulatedFleet fleet;

  public DemoFleet(
      @ConfigProperty(name = ENABLED, defaultValue = "false") boolean enabled,
      @ConfigProperty(name = "fleetwave.demo.fleet") Optional<String> fleetFile,
      @ConfigProperty(name = "fleetwave.demo.heartbeat-interval", defaultValue = "10s")
          Duration heartbeatInterval,
      @ConfigProperty(name = "fleetwave.demo.apply-delay", defaultValue = "0s") Duration applyDelay,
      @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers,
      CommandSigning signing,
      NodeEnrolment enrolment,
      Instance<HttpServer> http) {
    this.enabled = enabled;
    this.fleetFile = fleetFile;
    this.heartbeatInterval = heartbeatInterval;
    this.applyDelay = applyDelay;
    this.bootstrapServers = bootstrapServers;
    this.signing = signing;
    this.enrolment = enrolment;
    this.http = http;
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
              null,
              enrolling(file));
      LOG.infof(
          "demo fleet: %d simulated nodes from %s, heartbeat every %s, apply delay %s",
          fleet.nodes().size(),
          fleetFile.orElse("the bundled demo fleet"),
          heartbeatInterval,
          applyDelay);
    }
  }

  /**
   * The nodes enroll over HTTP as real agents do; the fleet starts before the server listens (it is
   * part of the application's start), so enrolment waits for it.
   */
  private FleetEnrolment enrolling(FleetFile file) {
    // Minted while the rest of the application starts: only the enrolments must wait for HTTP.
    Map<String, CompletableFuture<String>> tokens =
        file.nodes().stream()
            .collect(
                Collectors.toMap(
                    NodeSpec::name,
                    node ->
                        enrolment
                            .createJoinToken(
                                new JoinTokenRequest(node.name(), JOIN_TOKEN_LIFETIME.toSeconds()),
                                DEMO_ADMIN)
                            .map(JoinTokenCreated::token)
                            .subscribeAsCompletionStage()));
    listening
        .known()
        .exceptionally(
            e -> {
              LOG.errorf(
                  e, "demo fleet: cannot tell where the HTTP server listens; no node can enroll");
              return null;
            });
    return FleetEnrolment.whenListening(
        listening.known(), node -> joinToken(tokens.get(node), node));
  }

  private static String joinToken(CompletableFuture<String> minted, String node) {
    try {
      return minted.get(MINT_BOUND.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while minting the join token of " + node, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "no join token for node " + node + " within " + MINT_BOUND + ": " + e, e);
    }
  }

  /**
   * Where the nodes enroll: the port the started server's own options name, or on a random port the
   * URI Quarkus records ({@link ServerAddress}). Not {@code HttpServer.getLocalBaseUri()} alone:
   * Quarkus fires this event for every HTTP server it starts, some before it records that URI.
   */
  void onHttpStart(@ObservesAsync HttpServerStart event) {
    listening.started(event.options().getPort(), this::recordedUri);
  }

  /**
   * The URI Quarkus recorded, read with this application's class loader as the thread's: the
   * observer and {@link ServerAddress}'s asking again run on the common pool, whose threads' loader
   * can find another application's configuration (the tests start several in one JVM), where the
   * key is never recorded.
   */
  private URI recordedUri() {
    Thread thread = Thread.currentThread();
    ClassLoader before = thread.getContextClassLoader();
    thread.setContextClassLoader(DemoFleet.class.getClassLoader());
    try {
      return http.get().getLocalBaseUri();
    } finally {
      thread.setContextClassLoader(before);
    }
  }

  void onStop(@Observes ShutdownEvent event) {
    if (fleet != null) {
      fleet.close();
      fleet = null;
    }
  }
}
