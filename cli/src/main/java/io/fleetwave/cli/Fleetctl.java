package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** {@code fleetctl}: the Fleetwave API from a shell. */
@Command(
    name = "fleetctl",
    mixinStandardHelpOptions = true,
    version = "fleetctl 0.1.0",
    sortOptions = false,
    description =
        "Fleetwave from the command line: nodes, specs, MIG configs, rollouts, changes and drift.",
    subcommands = {
      NodesCommand.class,
      RolloutCommand.class,
      SpecCommand.class,
      MigConfigsCommand.class,
      AuditCommand.class,
      ChangesCommand.class,
      DriftCommand.class,
      CommandLine.HelpCommand.class
    },
    footerHeading = "%n",
    footer = {
      "Environment:",
      "  FLEETWAVE_URL     the API's base URL when --server is not given"
          + " (default http://localhost:8080)",
      "  FLEETWAVE_TOKEN   bearer token when --token is not given",
      "",
      "Exit codes:",
      "  0  done (rollout status --watch: the rollout completed with no failed node)",
      "  1  the API refused the request (its status and detail are printed), or the server"
          + " could not be reached or did not answer in time (--watch: past --timeout or"
          + " --outage)",
      "  2  usage error: unknown command or option, missing argument, unreadable file",
      "  3  rollout status --watch: the rollout ended aborted or rolled back, or completed with"
          + " failed nodes"
    })
public final class Fleetctl implements Runnable {
  public static final String DEFAULT_SERVER = "http://localhost:8080";

  /** Exit code of {@code rollout status --watch} when the rollout did not complete cleanly. */
  public static final int EXIT_ROLLOUT_NOT_COMPLETED = 3;

  @Option(
      names = {"-s", "--server"},
      scope = ScopeType.INHERIT,
      paramLabel = "URL",
      description = "the API's base URL (env FLEETWAVE_URL, default " + DEFAULT_SERVER + ")")
  String server;

  @Option(
      names = "--token",
      scope = ScopeType.INHERIT,
      paramLabel = "TOKEN",
      description = "bearer token sent as Authorization (env FLEETWAVE_TOKEN)")
  String token;

  @Option(
      names = {"-o", "--output"},
      scope = ScopeType.INHERIT,
      paramLabel = "FORMAT",
      description = "table (default), json or yaml")
  OutputFormat output = OutputFormat.table;

  @Option(
      names = "--connect-timeout",
      scope = ScopeType.INHERIT,
      paramLabel = "SECONDS",
      description = "bound on connecting to the server (default 5)")
  int connectTimeoutSeconds = 5;

  @Option(
      names = "--request-timeout",
      scope = ScopeType.INHERIT,
      paramLabel = "SECONDS",
      description = "bound on each request (default 30)")
  int requestTimeoutSeconds = 30;

  @Spec CommandSpec spec;

  private final Map<String, String> env;
  private ApiClient client;

  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  static final ObjectMapper YAML =
      new ObjectMapper(
          YAMLFactory.builder()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
              .build());

  public Fleetctl() {
    this(System.getenv());
  }

  /** With the environment given (tests). */
  public Fleetctl(Map<String, String> env) {
    this.env = env;
  }

  public static void main(String[] args) {
    System.exit(commandLine(new Fleetctl()).execute(args));
  }

  /** The command line with fleetctl's exit codes and error printing. */
  public static CommandLine commandLine(Fleetctl fleetctl) {
    CommandLine line = new CommandLine(fleetctl);
    withHelpOptions(line);
    line.setCaseInsensitiveEnumValuesAllowed(true);
    line.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          PrintWriter err = cmd.getErr();
          switch (e) {
            case ApiException api -> {
              err.println("error: " + api.getMessage());
              api.fieldErrors().forEach(f -> err.println("  " + f));
            }
            case UnreachableException unreachable ->
                err.println("error: " + unreachable.getMessage());
            default ->
                err.println("error: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
          }
          err.flush();
          return 1;
        });
    return line;
  }

  /** Every subcommand, however deep, takes --help and --version as fleetctl itself does. */
  private static void withHelpOptions(CommandLine line) {
    for (CommandLine sub : line.getSubcommands().values()) {
      if (!sub.getCommandSpec().helpCommand()
          && !sub.getCommandSpec().mixins().containsKey("mixinStandardHelpOptions")) {
        sub.getCommandSpec().mixinStandardHelpOptions(true);
      }
      withHelpOptions(sub);
    }
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The server URL: --server, else FLEETWAVE_URL, else the default. */
  public String serverUrl() {
    if (server != null && !server.isBlank()) {
      return server.strip();
    }
    String fromEnv = env.get("FLEETWAVE_URL");
    return fromEnv != null && !fromEnv.isBlank() ? fromEnv.strip() : DEFAULT_SERVER;
  }

  /** The token: --token, else FLEETWAVE_TOKEN, else none. */
  public String tokenValue() {
    if (token != null && !token.isBlank()) {
      return token;
    }
    String fromEnv = env.get("FLEETWAVE_TOKEN");
    return fromEnv == null || fromEnv.isBlank() ? null : fromEnv;
  }

  public OutputFormat output() {
    return output;
  }

  ApiClient client() {
    if (client == null) {
      URI uri;
      try {
        uri = URI.create(serverUrl());
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--server: not a URL: " + serverUrl());
      }
      if (uri.getScheme() == null
          || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
          || uri.getHost() == null) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "--server must be an http:// or https:// URL with a host, got '" + serverUrl() + "'");
      }
      if (connectTimeoutSeconds < 1 || requestTimeoutSeconds < 1) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--connect-timeout and --request-timeout must be at least 1");
      }
      client =
          new ApiClient(
              uri,
              tokenValue(),
              Duration.ofSeconds(connectTimeoutSeconds),
              Duration.ofSeconds(requestTimeoutSeconds),
              JSON);
    }
    return client;
  }

  /** Prints a JSON value as JSON or YAML per -o; false when the output is a table. */
  boolean printStructured(PrintWriter out, JsonNode value) {
    try {
      switch (output) {
        case json -> out.println(JSON.writeValueAsString(value));
        case yaml -> out.print(YAML.writeValueAsString(value));
        case table -> {
          return false;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.flush();
    return true;
  }

  /**
   * Prints an API answer as -o asks: JSON, YAML, or the command's table view of it ({@code
   * tableView} is only asked for a table, so a view that asks the API more costs nothing else).
   */
  static void show(CommandSpec spec, JsonNode answer, Supplier<String> tableView) {
    PrintWriter out = spec.commandLine().getOut();
    if (!root(spec).printStructured(out, answer)) {
      out.print(tableView.get());
      out.flush();
    }
  }

  /** A request file, JSON or YAML, as JSON; a usage error naming the file when it is unreadable. */
  static JsonNode readDocument(CommandSpec spec, Path file) {
    String text = readText(spec, file);
    try {
      JsonNode document = YAML.readTree(text);
      if (document == null || document.isMissingNode() || !document.isObject()) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), file + ": expected a JSON or YAML object");
      }
      return document;
    } catch (IOException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          file + ": neither JSON nor YAML: " + e.getMessage().lines().findFirst().orElse(""));
    }
  }

  static String readText(CommandSpec spec, Path file) {
    try {
      return Files.readString(file);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "cannot read " + file + ": no such file");
    } catch (java.nio.file.AccessDeniedException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "cannot read " + file + ": permission denied");
    } catch (IOException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "cannot read " + file + ": " + e);
    }
  }

  static Fleetctl root(CommandSpec spec) {
    return (Fleetctl) spec.root().userObject();
  }
}
