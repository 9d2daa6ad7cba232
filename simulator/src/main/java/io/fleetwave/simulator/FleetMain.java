package io.fleetwave.simulator;

import io.fleetwave.agent.desired.SpecFollowing;
import io.fleetwave.events.security.CommandVerifier;
import io.fleetwave.simulator.fleet.FleetFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a simulated fleet as its own process until it is stopped (SIGTERM / Ctrl-C), then stops
 * every agent in order. With {@code --public-key} every node also follows its signed desired spec
 * and commands, verified with that key (a spec signed with another key is rejected, as a real agent
 * does), taking {@code --apply-delay} before it starts converging each new spec: the rollout
 * benchmark's agents, out of the control plane's JVM.
 *
 * <pre>{@value #USAGE}</pre>
 */
public final class FleetMain {
  static final String USAGE =
      "usage: FleetMain --bootstrap HOST:PORT [--fleet FILE] [--heartbeat-seconds N]"
          + " [--public-key FILE [--apply-delay DURATION]]";
  private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)(ms|s|m)");

  private FleetMain() {}

  /**
   * What the command line asks for.
   *
   * @param publicKey the control plane's Ed25519 public key (X.509 PEM); empty: nodes follow no
   *     spec
   * @param applyDelay how long each following node waits before converging a new spec
   */
  record Options(
      String bootstrap,
      Optional<Path> fleetFile,
      Duration heartbeat,
      Optional<Path> publicKey,
      Duration applyDelay) {

    /** The key's verifier; the file is read here, so a bad key fails the start naming the file. */
    Optional<SpecFollowing> following() {
      return publicKey.map(file -> SpecFollowing.of(verifier(file)).withApplyDelay(applyDelay));
    }
  }

  public static void main(String[] args) throws InterruptedException {
    SimulatedFleet running;
    try {
      running = start(parse(args));
    } catch (IllegalArgumentException e) {
      System.err.println("fleet: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  running.close();
                  stopped.countDown();
                },
                "fleetwave-sim-shutdown"));
    stopped.await();
  }

  /** Starts the fleet the options describe and says so on stdout (the bench waits for the line). */
  static SimulatedFleet start(Options options) {
    FleetFile fleet = options.fleetFile().map(FleetFile::read).orElseGet(FleetFile::bundledDemo);
    Optional<SpecFollowing> following = options.following();
    SimulatedFleet running =
        SimulatedFleet.start(
            fleet,
            SimulatedFleet.Settings.of(options.bootstrap(), options.heartbeat()),
            following.orElse(null),
            null);
    System.out.println(
        "simulated fleet of "
            + running.nodes().size()
            + " nodes publishing to "
            + options.bootstrap()
            + (following.isPresent()
                ? ", following signed specs (apply delay " + options.applyDelay() + ")"
                : ""));
    return running;
  }

  /**
   * @throws IllegalArgumentException naming the option and the value it could not take
   */
  static Options parse(String... args) {
    String bootstrap = null;
    Path fleetFile = null;
    Duration heartbeat = Duration.ofSeconds(10);
    Path publicKey = null;
    Duration applyDelay = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--fleet" -> fleetFile = Path.of(value(args, ++i, "--fleet"));
        case "--bootstrap" -> bootstrap = value(args, ++i, "--bootstrap");
        case "--heartbeat-seconds" ->
            heartbeat = heartbeat(value(args, ++i, "--heartbeat-seconds"));
        case "--public-key" -> publicKey = Path.of(value(args, ++i, "--public-key"));
        case "--apply-delay" -> applyDelay = duration(value(args, ++i, "--apply-delay"));
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (bootstrap == null) {
      throw new IllegalArgumentException("--bootstrap HOST:PORT is required");
    }
    if (applyDelay != null && publicKey == null) {
      throw new IllegalArgumentException(
          "--apply-delay needs --public-key: only nodes that follow their signed spec apply one");
    }
    return new Options(
        bootstrap,
        Optional.ofNullable(fleetFile),
        heartbeat,
        Optional.ofNullable(publicKey),
        applyDelay == null ? Duration.ZERO : applyDelay);
  }

  private static Duration heartbeat(String value) {
    try {
      long seconds = Long.parseLong(value);
      if (seconds > 0) {
        return Duration.ofSeconds(seconds);
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "--heartbeat-seconds: '" + value + "' is not a positive whole number of seconds");
  }

  /** 500ms, 2s, 1m or ISO-8601 (PT2S); never negative. */
  static Duration duration(String value) {
    Matcher shorthand = SHORT_DURATION.matcher(value);
    if (shorthand.matches()) {
      long amount = Long.parseLong(shorthand.group(1));
      return switch (shorthand.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        default -> Duration.ofMinutes(amount);
      };
    }
    Duration parsed;
    try {
      parsed = Duration.parse(value);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "--apply-delay: '" + value + "' is not a duration (e.g. 2s, 500ms, PT2S)");
    }
    if (parsed.isNegative()) {
      throw new IllegalArgumentException("--apply-delay: '" + value + "' is negative");
    }
    return parsed;
  }

  private static CommandVerifier verifier(Path file) {
    String pem;
    try {
      pem = Files.readString(file);
    } catch (IOException e) {
      throw new IllegalArgumentException("--public-key: cannot read " + file + ": " + e, e);
    }
    try {
      return CommandVerifier.fromX509(pem);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--public-key: " + file + " is not an Ed25519 public key in PEM: " + e.getMessage(), e);
    }
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }
}
