package io.fleetwave.simulator;

import io.fleetwave.agent.desired.SpecFollowing;
import io.fleetwave.events.security.CommandVerifier;
import io.fleetwave.simulator.fleet.FleetFile;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a simulated fleet as its own process until it is stopped (SIGTERM / Ctrl-C), then stops
 * every agent in order. With {@code --public-key} every node also follows its signed desired spec
 * and commands, verified with that key (a spec signed with another key is rejected, as a real agent
 * does), taking {@code --apply-delay} before it starts converging each new spec: the rollout
 * benchmark's agents, out of the control plane's JVM. With {@code --control-plane} every node
 * enrolls its own key there, with its join token from the {@code --join-tokens} file (one {@code
 * NODE TOKEN} per line, as an admin minted them: {@code POST /api/v1/join-tokens}), and signs its
 * events, as a real agent does. With {@code --kafka-wait} the nodes' producers wait that long for a
 * broker that is away (for its metadata and for each acknowledgement) before they drop an event (10
 * s and 30 s otherwise): a fleet that rides out a broker outage losing nothing. With {@code
 * --driver-webhook-port} it receives the control plane's webhook driver executor there (loopback;
 * verified with the {@code whsec_} secret in {@code --driver-webhook-secret-file}) and has the
 * named node install the driver, taking the apply delay ({@link DriverWebhook}).
 *
 * <pre>{@value #USAGE}</pre>
 */
public final class FleetMain {
  static final String USAGE =
      "usage: FleetMain --bootstrap HOST:PORT [--fleet FILE] [--heartbeat-seconds N]"
          + " [--public-key FILE [--apply-delay DURATION]]"
          + " [--control-plane URL --join-tokens FILE] [--kafka-wait DURATION]"
          + " [--driver-webhook-port N --driver-webhook-secret-file FILE]";
  private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)(ms|s|m)");
  private static final Pattern TOKEN_LINE = Pattern.compile("(\\S+)\\s+(\\S+)");

  private FleetMain() {}

  /**
   * What the command line asks for.
   *
   * @param publicKey the control plane's Ed25519 public key (X.509 PEM); empty: nodes follow no
   *     spec
   * @param applyDelay how long each following node waits before converging a new spec
   * @param controlPlane where nodes enroll; empty: they publish unsigned
   * @param joinTokens the file of each node's join token (with controlPlane)
   * @param kafkaWait how long the producers wait for the broker; empty: the agents' defaults
   * @param driverWebhookPort where the driver webhook listens; empty: it does not
   * @param driverWebhookSecret the file of its {@code whsec_} secret (with driverWebhookPort)
   */
  record Options(
      String bootstrap,
      Optional<Path> fleetFile,
      Duration heartbeat,
      Optional<Path> publicKey,
      Duration applyDelay,
      Optional<URI> controlPlane,
      Optional<Path> joinTokens,
      Optional<Duration> kafkaWait,
      Optional<Integer> driverWebhookPort,
      Optional<Path> driverWebhookSecret) {

    /** The fleet's settings: the agents' waits for the broker, or {@code --kafka-wait}'s. */
    SimulatedFleet.Settings settings() {
      SimulatedFleet.Settings defaults = SimulatedFleet.Settings.of(bootstrap, heartbeat);
      return kafkaWait
          .map(
              wait ->
                  // The broker's wait bounds the agents' deliveries too.
                  new SimulatedFleet.Settings(
                      bootstrap,
                      heartbeat,
                      defaults.topic(),
                      defaults.schedulerThreads(),
                      defaults.closeTimeout(),
                      wait,
                      wait))
          .orElse(defaults);
    }

    /** The nodes' enrolment; the token file is read here, so a bad one fails the start. */
    Optional<FleetEnrolment> enrolment() {
      return controlPlane.map(
          url -> {
            Path file = joinTokens.orElseThrow();
            Map<String, String> tokens = readJoinTokens(file);
            return FleetEnrolment.of(
                url,
                node -> {
                  String token = tokens.get(node);
                  if (token == null) {
                    throw new IllegalStateException(
                        "--join-tokens: " + file + " has no join token for node " + node);
                  }
                  return token;
                });
          });
    }

    /** The key's verifier; the file is read here, so a bad key fails the start naming the file. */
    Optional<SpecFollowing> following() {
      return publicKey.map(file -> SpecFollowing.of(verifier(file)).withApplyDelay(applyDelay));
    }
  }

  public static void main(String[] args) throws InterruptedException, IOException {
    SimulatedFleet running;
    DriverWebhook webhook;
    try {
      Options options = parse(args);
      String secret =
          options
              .driverWebhookSecret()
              .map(file -> read("--driver-webhook-secret-file", file))
              .orElse(null);
      running = start(options);
      webhook =
          secret == null
              ? null
              : DriverWebhook.start(
                  options.driverWebhookPort().orElseThrow(),
                  secret,
                  running,
                  options.applyDelay(),
                  java.time.Clock.systemUTC());
      if (webhook != null) {
        System.out.println("driver webhook listening on http://localhost:" + webhook.port() + "/");
      }
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
                  if (webhook != null) {
                    webhook.close();
                  }
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
            options.settings(),
            following.orElse(null),
            null,
            options.enrolment().orElse(null));
    System.out.println(
        "simulated fleet of "
            + running.nodes().size()
            + " nodes publishing to "
            + options.bootstrap()
            + (following.isPresent()
                ? ", following signed specs (apply delay " + options.applyDelay() + ")"
                : "")
            + options.controlPlane().map(url -> ", enrolling with " + url).orElse(""));
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
    URI controlPlane = null;
    Path joinTokens = null;
    Duration kafkaWait = null;
    Integer driverWebhookPort = null;
    Path driverWebhookSecret = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--fleet" -> fleetFile = Path.of(value(args, ++i, "--fleet"));
        case "--bootstrap" -> bootstrap = value(args, ++i, "--bootstrap");
        case "--heartbeat-seconds" ->
            heartbeat = heartbeat(value(args, ++i, "--heartbeat-seconds"));
        case "--public-key" -> publicKey = Path.of(value(args, ++i, "--public-key"));
        case "--apply-delay" ->
            applyDelay = duration(value(args, ++i, "--apply-delay"), "--apply-delay");
        case "--control-plane" -> controlPlane = url(value(args, ++i, "--control-plane"));
        case "--join-tokens" -> joinTokens = Path.of(value(args, ++i, "--join-tokens"));
        case "--kafka-wait" ->
            kafkaWait = duration(value(args, ++i, "--kafka-wait"), "--kafka-wait");
        case "--driver-webhook-port" ->
            driverWebhookPort = port(value(args, ++i, "--driver-webhook-port"));
        case "--driver-webhook-secret-file" ->
            driverWebhookSecret = Path.of(value(args, ++i, "--driver-webhook-secret-file"));
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
    if ((controlPlane == null) != (joinTokens == null)) {
      throw new IllegalArgumentException(
          "--control-plane and --join-tokens go together: nodes enroll there with those tokens");
    }
    if ((driverWebhookPort == null) != (driverWebhookSecret == null)) {
      throw new IllegalArgumentException(
          "--driver-webhook-port and --driver-webhook-secret-file go together: the webhook"
              + " verifies each request with that secret");
    }
    if (driverWebhookPort != null && publicKey == null) {
      throw new IllegalArgumentException(
          "--driver-webhook-port needs --public-key: a driver rollout's nodes follow their spec");
    }
    return new Options(
        bootstrap,
        Optional.ofNullable(fleetFile),
        heartbeat,
        Optional.ofNullable(publicKey),
        applyDelay == null ? Duration.ZERO : applyDelay,
        Optional.ofNullable(controlPlane),
        Optional.ofNullable(joinTokens),
        Optional.ofNullable(kafkaWait),
        Optional.ofNullable(driverWebhookPort),
        Optional.ofNullable(driverWebhookSecret));
  }

  private static int port(String value) {
    try {
      int port = Integer.parseInt(value);
      if (port >= 0 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "--driver-webhook-port: '" + value + "' is not a port number (0-65535)");
  }

  private static URI url(String value) {
    try {
      URI url = new URI(value);
      if (("http".equals(url.getScheme()) || "https".equals(url.getScheme()))
          && url.getHost() != null) {
        return url;
      }
    } catch (URISyntaxException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "--control-plane: '" + value + "' is not an http(s) URL (e.g. http://localhost:8080)");
  }

  /** Each node's join token from the file: one {@code NODE TOKEN} per line, # for comments. */
  static Map<String, String> readJoinTokens(Path file) {
    List<String> lines = read("--join-tokens", file).lines().toList();
    Map<String, String> tokens = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher fields = TOKEN_LINE.matcher(line);
      if (!fields.matches()) {
        throw new IllegalArgumentException(
            "--join-tokens: "
                + file
                + " line "
                + (i + 1)
                + " is not 'NODE TOKEN' (two fields separated by spaces)");
      }
      tokens.put(fields.group(1), fields.group(2));
    }
    return tokens;
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
  static Duration duration(String value, String option) {
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
          option + ": '" + value + "' is not a duration (e.g. 2s, 500ms, PT2S)");
    }
    if (parsed.isNegative()) {
      throw new IllegalArgumentException(option + ": '" + value + "' is negative");
    }
    return parsed;
  }

  /** The file an option names, read whole; one that cannot be read fails that option. */
  private static String read(String option, Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(option + ": cannot read " + file + ": " + e, e);
    }
  }

  private static CommandVerifier verifier(Path file) {
    String pem = read("--public-key", file);
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
