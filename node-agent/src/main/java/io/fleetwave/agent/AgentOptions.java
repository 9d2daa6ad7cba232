package io.fleetwave.agent;

import io.fleetwave.events.security.CommandVerifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The real agent's settings: command-line options win, then environment variables, then defaults.
 * Nothing here has to be right for the host to be detected; the driver and device roots are only
 * overrides (seed 004). Zone and labels are empty when not given: they then come from the Node
 * object where the agent may read it ({@link Placement}), else default to {@value #DEFAULT_ZONE}
 * and none.
 */
record AgentOptions(
    Optional<String> bootstrapServers,
    Optional<Path> kafkaConfig,
    Optional<String> nodeName,
    Path hostRoot,
    Optional<String> driverRoot,
    Optional<String> deviceRoot,
    Optional<String> zone,
    Optional<Map<String, String>> labels,
    List<String> nodeLabelPrefixes,
    Duration heartbeatInterval,
    Duration inventoryInterval,
    Duration busTimeout,
    Duration nvmlTimeout,
    Duration driverRetryCap,
    boolean rebootAllowed,
    boolean probeOnly,
    Optional<String> publicKey,
    Duration clockSkew,
    long spoolBytes,
    long memoryQueueBytes,
    Optional<String> controlPlane,
    Optional<Path> controlPlaneCa,
    Optional<String> joinToken,
    Optional<Path> joinTokenFile,
    Optional<String> serviceAccountToken,
    OptionalInt metricsPort,
    String metricsAddress) {

  /** Where Kubernetes mounts a pod's service-account token. */
  static final String POD_SERVICE_ACCOUNT_TOKEN =
      "/var/run/secrets/kubernetes.io/serviceaccount/token";

  static final String DEFAULT_ZONE = "default";

  /**
   * Why a join token is never an argument: every local user reads a process's arguments (ps,
   * /proc/PID/cmdline) and could enroll with the token before the agent does.
   */
  static final String JOIN_TOKEN_ARGUMENT =
      "--join-token is not accepted: a command line is readable by every local user (ps), who could"
          + " enroll with the token first; give --join-token-file FILE (readable by the agent"
          + " only), or the token in the environment variable FLEETWAVE_JOIN_TOKEN";

  static final String USAGE =
      """
      usage: fleetwave-agent --bootstrap HOST:PORT [options]
             fleetwave-agent --kafka-config FILE [options]
             fleetwave-agent --probe-only [options]
        --bootstrap HOST:PORT     Kafka (env FLEETWAVE_KAFKA_BOOTSTRAP); wins over bootstrap.servers
                                  in the --kafka-config file
        --kafka-config FILE       Kafka client properties merged into every client of the agent:
                                  security.protocol, sasl.*, ssl.*, client.id, bootstrap.servers...
                                  (env FLEETWAVE_KAFKA_CONFIG); keys the agent sets itself (acks,
                                  serializers, idempotence, group.*, isolation.level, its
                                  timeouts...) are refused
        --node-name NAME          the node's name, key of its events (env NODE_NAME, on Kubernetes
                                  from spec.nodeName); default: the host's etc/hostname, else
                                  proc/sys/kernel/hostname, else the agent's host name
        --host-root DIR           where the host's / is mounted (env FLEETWAVE_HOST_ROOT, default /)
        --driver-root PATH        override the detected driver root (env FLEETWAVE_DRIVER_ROOT)
        --device-root PATH        override the detected device root (env FLEETWAVE_DEVICE_ROOT)
        --zone NAME               failure domain (env FLEETWAVE_ZONE); default: the Node object's
                                  topology.kubernetes.io/zone in a pod, else "default"
        --labels k=v,k=v          node labels (env FLEETWAVE_LABELS); default: the Node object's
                                  labels in a pod, else none
        --node-label-prefixes P,P take only the Node object's labels whose key starts with one of
                                  these (env FLEETWAVE_NODE_LABEL_PREFIXES; default: all labels)
        --heartbeat-seconds N     default 10
        --inventory-seconds N     how often GPU state is re-read, default 15
        --bus-timeout-seconds N   bound on every D-Bus call, default 3
        --nvml-timeout-seconds N  bound on every NVML call, default 10; a call past it fails and
                                  later calls fail fast until it returns
        --driver-retry-seconds N  without a usable driver the agent registers, heartbeats and
                                  retries the driver probe: 1 s, 2 s, 4 s... at most N s apart,
                                  default 60
        --public-key FILE|DIR,... the control plane's Ed25519 public keys (X.509 PEM) to trust:
                                  files, or directories whose every visible file is one (a mounted
                                  ConfigMap), comma-separated; re-read when they change, so keys
                                  rotate without a restart. Enables following the node's signed
                                  desired spec and commands (env FLEETWAVE_COMMAND_PUBLIC_KEY: the
                                  same, or the PEM itself)
        --clock-skew-seconds N    tolerance between the agent's and the control plane's clocks: a
                                  command issued up to N s in the future is accepted, and expires
                                  N s after its expiry (env FLEETWAVE_CLOCK_SKEW_SECONDS),
                                  default 60
        --spool-mib N             bound of the event spool in the state directory, kept while
                                  Kafka is unreachable (writable hosts), default 64
        --memory-queue-mib N      bound of the event queue in memory, kept while Kafka is
                                  unreachable (read-only hosts: Talos, COS), default 8
        --control-plane URL       enroll the node's own key with this control plane and sign
                                  every event with it (env FLEETWAVE_CONTROL_PLANE_URL); the key
                                  is kept 0600 in the state directory (writable hosts) or made
                                  anew in memory at each start (read-only hosts)
        --control-plane-ca FILE   the CA certificates (PEM) that an https --control-plane's
                                  certificate must chain to, instead of the JVM's trust store: a
                                  private CA such as cert-manager's (env
                                  FLEETWAVE_CONTROL_PLANE_CA)
        --join-token-file FILE    file holding the one-time join token to enroll with, hosts
                                  outside Kubernetes (env FLEETWAVE_JOIN_TOKEN_FILE; or the
                                  token itself in env FLEETWAVE_JOIN_TOKEN, never as an argument)
        --service-account-token FILE
                                  the pod's service-account token to enroll with (env
                                  FLEETWAVE_SERVICE_ACCOUNT_TOKEN; default in a pod:
                                  /var/run/secrets/kubernetes.io/serviceaccount/token)
        --metrics-port N          serve Prometheus metrics at http://ADDRESS:N/metrics and the
                                  probes /startupz, /livez, /readyz beside them (env
                                  FLEETWAVE_METRICS_PORT); off when not given, 0 = any free port
        --metrics-address ADDRESS where the metrics port listens (env FLEETWAVE_METRICS_ADDRESS),
                                  default 0.0.0.0
        --allow-reboot            a node reboot may stand in for an impossible GPU reset
        --probe-only              print NodeRegistered and GpuInventoryReported as JSON (or why
                                  the GPUs are not ready) and exit; reads only, changes nothing\
      """;

  static AgentOptions parse(String[] args, Map<String, String> env) {
    Map<String, String> values = new LinkedHashMap<>();
    boolean reboot = false;
    boolean probeOnly = false;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--allow-reboot" -> reboot = true;
        case "--join-token" -> throw new IllegalArgumentException(JOIN_TOKEN_ARGUMENT);
        case "--probe-only" -> probeOnly = true;
        case "--bootstrap",
            "--kafka-config",
            "--node-name",
            "--host-root",
            "--driver-root",
            "--device-root",
            "--zone",
            "--labels",
            "--node-label-prefixes",
            "--heartbeat-seconds",
            "--inventory-seconds",
            "--bus-timeout-seconds",
            "--nvml-timeout-seconds",
            "--driver-retry-seconds",
            "--spool-mib",
            "--memory-queue-mib",
            "--clock-skew-seconds",
            "--public-key",
            "--control-plane",
            "--control-plane-ca",
            "--join-token-file",
            "--service-account-token",
            "--metrics-port",
            "--metrics-address" -> {
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException(arg + " needs a value");
          }
          values.put(arg, args[++i]);
        }
        default -> throw new IllegalArgumentException("unknown option " + arg);
      }
    }
    Optional<String> bootstrap = option(values, env, "--bootstrap", "FLEETWAVE_KAFKA_BOOTSTRAP");
    Optional<Path> kafkaConfig =
        option(values, env, "--kafka-config", "FLEETWAVE_KAFKA_CONFIG").map(Path::of);
    if (!probeOnly && bootstrap.isEmpty() && kafkaConfig.isEmpty()) {
      throw new IllegalArgumentException(
          "--bootstrap HOST:PORT (or FLEETWAVE_KAFKA_BOOTSTRAP, or bootstrap.servers in a"
              + " --kafka-config file) is required");
    }
    Optional<String> joinToken =
        Optional.ofNullable(env.get("FLEETWAVE_JOIN_TOKEN"))
            .filter(token -> !token.isBlank())
            .map(String::strip);
    Optional<Path> joinTokenFile =
        option(values, env, "--join-token-file", "FLEETWAVE_JOIN_TOKEN_FILE").map(Path::of);
    if (joinToken.isPresent() && joinTokenFile.isPresent()) {
      throw new IllegalArgumentException(
          "give one join token: --join-token-file (FLEETWAVE_JOIN_TOKEN_FILE) or"
              + " FLEETWAVE_JOIN_TOKEN, not both");
    }
    Optional<String> controlPlane =
        option(values, env, "--control-plane", "FLEETWAVE_CONTROL_PLANE_URL");
    Optional<Path> controlPlaneCa =
        option(values, env, "--control-plane-ca", "FLEETWAVE_CONTROL_PLANE_CA").map(Path::of);
    if (controlPlaneCa.isPresent()
        && !controlPlane.map(url -> url.startsWith("https://")).orElse(false)) {
      throw new IllegalArgumentException(
          "--control-plane-ca needs an https:// --control-plane (FLEETWAVE_CONTROL_PLANE_URL), got "
              + controlPlane.orElse("none"));
    }
    return new AgentOptions(
        bootstrap,
        kafkaConfig,
        option(values, env, "--node-name", "NODE_NAME"),
        Path.of(option(values, env, "--host-root", "FLEETWAVE_HOST_ROOT").orElse("/")),
        option(values, env, "--driver-root", "FLEETWAVE_DRIVER_ROOT"),
        option(values, env, "--device-root", "FLEETWAVE_DEVICE_ROOT"),
        option(values, env, "--zone", "FLEETWAVE_ZONE"),
        option(values, env, "--labels", "FLEETWAVE_LABELS").map(AgentOptions::labels),
        option(values, env, "--node-label-prefixes", "FLEETWAVE_NODE_LABEL_PREFIXES")
            .map(AgentOptions::list)
            .orElse(List.of()),
        seconds(values, "--heartbeat-seconds", 10),
        seconds(values, "--inventory-seconds", 15),
        seconds(values, "--bus-timeout-seconds", 3),
        seconds(values, "--nvml-timeout-seconds", 10),
        seconds(values, "--driver-retry-seconds", 60),
        reboot,
        probeOnly,
        option(values, env, "--public-key", "FLEETWAVE_COMMAND_PUBLIC_KEY"),
        clockSkew(option(values, env, "--clock-skew-seconds", "FLEETWAVE_CLOCK_SKEW_SECONDS")),
        mebibytes(values, env, "--spool-mib", "FLEETWAVE_SPOOL_MIB", 64),
        mebibytes(values, env, "--memory-queue-mib", "FLEETWAVE_MEMORY_QUEUE_MIB", 8),
        controlPlane,
        controlPlaneCa,
        joinToken,
        joinTokenFile,
        option(values, env, "--service-account-token", "FLEETWAVE_SERVICE_ACCOUNT_TOKEN"),
        port(option(values, env, "--metrics-port", "FLEETWAVE_METRICS_PORT")),
        option(values, env, "--metrics-address", "FLEETWAVE_METRICS_ADDRESS").orElse("0.0.0.0"));
  }

  private static OptionalInt port(Optional<String> value) {
    if (value.isEmpty()) {
      return OptionalInt.empty();
    }
    try {
      int port = Integer.parseInt(value.get());
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException(
            "--metrics-port must be between 0 and 65535, got " + value.get());
      }
      return OptionalInt.of(port);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--metrics-port must be a port number (0-65535), got " + value.get());
    }
  }

  private static Duration clockSkew(Optional<String> value) {
    if (value.isEmpty()) {
      return CommandVerifier.DEFAULT_CLOCK_SKEW;
    }
    long seconds = wholeNumber("--clock-skew-seconds", value.get(), "a whole number of seconds");
    if (seconds < 0 || seconds > 3600) {
      throw new IllegalArgumentException(
          "--clock-skew-seconds must be between 0 and 3600, got " + value.get());
    }
    return Duration.ofSeconds(seconds);
  }

  private static long mebibytes(
      Map<String, String> values, Map<String, String> env, String flag, String variable, long mib) {
    Optional<String> value = option(values, env, flag, variable);
    if (value.isEmpty()) {
      return mib * 1024 * 1024;
    }
    long given = wholeNumber(flag, value.get(), "a whole number of MiB");
    if (given <= 0 || given > 1024 * 1024) {
      throw new IllegalArgumentException(
          flag + " must be between 1 and 1048576 MiB, got " + value.get());
    }
    return given * 1024 * 1024;
  }

  private static Optional<String> option(
      Map<String, String> values, Map<String, String> env, String flag, String variable) {
    String value = values.getOrDefault(flag, env.get(variable));
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }

  private static Duration seconds(Map<String, String> values, String flag, long fallback) {
    String value = values.get(flag);
    if (value == null) {
      return Duration.ofSeconds(fallback);
    }
    long seconds = wholeNumber(flag, value, "a whole number of seconds");
    if (seconds <= 0) {
      throw new IllegalArgumentException(flag + " must be positive, got " + value);
    }
    return Duration.ofSeconds(seconds);
  }

  /**
   * The option's value as a whole number, refused naming the flag, what it must be and the value
   * given: {@code --spool-mib must be a whole number of MiB, got 1.5}. Each caller checks its own
   * bounds after.
   */
  private static long wholeNumber(String flag, String value, String mustBe) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + " must be " + mustBe + ", got " + value);
    }
  }

  static Map<String, String> labels(String text) {
    Map<String, String> labels = new LinkedHashMap<>();
    for (String pair : text.split(",", -1)) {
      if (pair.isBlank()) {
        continue;
      }
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("label '" + pair + "' is not key=value");
      }
      labels.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }
    return Map.copyOf(labels);
  }

  private static List<String> list(String text) {
    return Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }
}
