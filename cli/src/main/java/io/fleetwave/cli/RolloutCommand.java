package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "rollout",
    description = "Plan, create, watch and steer rollouts.",
    subcommands = {
      RolloutCommand.ListRollouts.class,
      RolloutCommand.Plan.class,
      RolloutCommand.Create.class,
      RolloutCommand.Status.class,
      RolloutCommand.Nodes.class,
      RolloutCommand.Pause.class,
      RolloutCommand.Resume.class,
      RolloutCommand.Promote.class,
      RolloutCommand.Abort.class,
      RolloutCommand.Rollback.class
    })
final class RolloutCommand {
  static final String BASE = "/api/v1/rollouts";

  /** States after which a rollout does nothing more. */
  static final Set<String> FINAL_STATES = Set.of("completed", "aborted", "rolled-back", "failed");

  @Command(name = "list", description = "Rollouts, newest first.")
  static final class ListRollouts implements Runnable {
    @Spec CommandSpec spec;

    @Option(
        names = "--state",
        paramLabel = "STATES",
        description =
            "only rollouts in these states, comma-separated (created, running, paused,"
                + " rolling-back, completed, aborted, rolled-back, failed)")
    String state;

    @Override
    public void run() {
      PagedListing.fetchAll(
              Fleetctl.root(spec).client(), BASE, Collections.singletonMap("state", state))
          .show(spec, RolloutCommand::listTable);
    }
  }

  static Table listTable(JsonNode rollouts) {
    Table table = new Table("id", "name", "state", "nodes", "change", "created");
    for (JsonNode r : rollouts) {
      table.row(
          r.path("id").asText(),
          r.path("name").asText(),
          r.path("state").asText(),
          r.path("plannedNodes").asInt(),
          change(r.path("migConfig"), r.path("driverVersion")),
          NodesCommand.text(r, "createdAt"));
    }
    return table;
  }

  /** plan and create: POST the rollout request of a file, then show the answer. */
  abstract static class FromRequestFile implements Runnable {
    @Spec CommandSpec spec;

    @Option(
        names = {"-f", "--file"},
        required = true,
        paramLabel = "FILE",
        description = "the rollout request, JSON or YAML")
    Path file;

    /** Where the request goes. */
    abstract String path();

    /** The table view of the API's answer. */
    abstract String render(JsonNode answer);

    @Override
    public void run() {
      JsonNode request = Fleetctl.readDocument(spec, file);
      JsonNode answer = Fleetctl.root(spec).client().post(path(), request).body();
      Fleetctl.show(spec, answer, () -> render(answer));
    }
  }

  @Command(
      name = "plan",
      description =
          "Plan a rollout without creating it (dry run): waves, per-node actions, exclusions and"
              + " capacity impact.")
  static final class Plan extends FromRequestFile {
    @Override
    String path() {
      return BASE + "?dryRun=true";
    }

    @Override
    String render(JsonNode plan) {
      return renderPlan(plan);
    }
  }

  @Command(
      name = "create",
      description = "Create a rollout; the engine starts it at once. Prints its id.")
  static final class Create extends FromRequestFile {
    @Override
    String path() {
      return BASE;
    }

    @Override
    String render(JsonNode created) {
      JsonNode plan = created.path("plan");
      return "rollout %s created: %s, %d node(s) in %d wave(s)%nfollow it with: fleetctl rollout status %s --watch%n"
          .formatted(
              created.path("id").asText(),
              created.path("name").asText(),
              plan.path("plannedNodes").asInt(),
              plan.path("waves").size(),
              created.path("id").asText());
    }
  }

  @Command(
      name = "status",
      description = {
        "A rollout's state, its progress per wave and its nodes in flight or failed (read from"
            + " the rollout's summary and node pages: small whatever the rollout's size).",
        "With --watch: follow it until it ends, one progress line per wave as it advances, then"
            + " the outcome; exit 0 when it completed with no failed node, 3 when it ended aborted,"
            + " rolled back or with failed nodes, 1 when --timeout passed or the API failed."
      })
  static final class Status implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "ID", description = "the rollout's id")
    String id;

    @Option(
        names = {"-w", "--watch"},
        description = "follow until the rollout ends")
    boolean watch;

    @Option(
        names = "--interval",
        paramLabel = "MILLIS",
        description = "--watch: how often to poll (default 1000)")
    long intervalMillis = 1000;

    @Option(
        names = "--timeout",
        paramLabel = "SECONDS",
        description = "--watch: give up after this long (exit 1); default: no limit")
    Long timeoutSeconds;

    @Option(
        names = "--outage",
        paramLabel = "SECONDS",
        description =
            "--watch: how long the server may be unreachable or answer 5xx before giving up"
                + " (exit 1), e.g. while another control plane replica takes over (default 60)")
    long outageSeconds = 60;

    /** When the current outage began (nanoTime), or null while the server answers. */
    private Long outageSince;

    /** One poll: the view, or null during an outage shorter than --outage. */
    private JsonNode poll(Fleetctl root, String path) {
      try {
        JsonNode view = root.client().get(path);
        if (outageSince != null) {
          spec.commandLine().getErr().println("the API answers again");
          spec.commandLine().getErr().flush();
          outageSince = null;
        }
        return view;
      } catch (UnreachableException | ApiException e) {
        if (e instanceof ApiException api && api.status() < 500) {
          throw api;
        }
        long now = System.nanoTime();
        if (outageSince == null) {
          outageSince = now;
          spec.commandLine()
              .getErr()
              .println(
                  "warning: "
                      + e.getMessage()
                      + "; trying again for up to "
                      + outageSeconds
                      + " s (--outage)");
          spec.commandLine().getErr().flush();
        } else if (now - outageSince > Duration.ofSeconds(outageSeconds).toNanos()) {
          throw e;
        }
        return null;
      }
    }

    @Override
    public Integer call() throws InterruptedException {
      Fleetctl root = Fleetctl.root(spec);
      PrintWriter out = spec.commandLine().getOut();
      if (intervalMillis < 50) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--interval must be at least 50 ms");
      }
      String path = BASE + "/" + ApiClient.encode(id) + "/summary";
      JsonNode view = root.client().get(path);
      if (!watch) {
        JsonNode summary = view;
        Fleetctl.show(spec, summary, () -> renderStatus(summary, unusualNodes(root, id)));
        return 0;
      }
      long deadline =
          timeoutSeconds == null
              ? Long.MAX_VALUE
              : System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
      Watcher watcher = new Watcher(out, root.output());
      watcher.show(view);
      while (!FINAL_STATES.contains(view.path("state").asText())) {
        if (System.nanoTime() > deadline) {
          watcher.flush();
          throw new IllegalStateException(
              "rollout "
                  + id
                  + " still "
                  + view.path("state").asText()
                  + " after --timeout "
                  + timeoutSeconds
                  + " s");
        }
        Thread.sleep(intervalMillis); // poll interval of a bounded (--timeout) watch
        JsonNode next = poll(root, path);
        if (next == null) {
          continue; // an outage shorter than --outage: try again
        }
        view = next;
        watcher.show(view);
      }
      return watcher.finish(view);
    }
  }

  @Command(
      name = "nodes",
      description = {
        "A rollout's planned nodes with their state, reason and timings, by wave then name.",
        "Read a page of 500 at a time from the API; --limit bounds how many are shown."
      })
  static final class Nodes implements Runnable {
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "ID", description = "the rollout's id")
    String id;

    @Option(
        names = "--state",
        paramLabel = "STATES",
        description =
            "only nodes in these states, comma-separated (pending, in-flight,"
                + " succeeded, failed)")
    String state;

    @Option(
        names = "--wave",
        paramLabel = "WAVES",
        description = "only nodes of these waves, comma-separated (1 = the canary)")
    String wave;

    @Option(
        names = "--limit",
        paramLabel = "N",
        description = "show at most N nodes (default: all)")
    Integer limit;

    @Override
    public void run() {
      Fleetctl root = Fleetctl.root(spec);
      if (limit != null && limit < 1) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--limit must be 1 or more");
      }
      Map<String, Object> params = new LinkedHashMap<>();
      params.put("state", state);
      params.put("wave", wave);
      PagedListing listing =
          PagedListing.fetch(
              root.client(),
              BASE + "/" + ApiClient.encode(id) + "/nodes",
              params,
              limit == null ? Integer.MAX_VALUE : limit);
      Fleetctl.show(spec, listing.items(), () -> renderNodes(listing));
    }
  }

  /** A rollout's nodes as a table, then how many of how many are shown when not all are. */
  static String renderNodes(PagedListing listing) {
    Table table = new Table("wave", "node", "phase", "state", "started", "elapsed", "reason");
    for (JsonNode node : listing.items()) {
      table.row(
          node.path("wave").asInt(),
          node.path("node").asText(),
          NodesCommand.text(node, "phase"),
          node.path("state").asText(),
          NodesCommand.text(node, "startedAt"),
          node.hasNonNull("elapsedMillis")
              ? "%.1f s".formatted(node.path("elapsedMillis").asLong() / 1000.0)
              : "",
          NodesCommand.text(node, "reason"));
    }
    long shown = listing.items().size();
    return table.render()
        + (listing.total() > shown ? "(%d of %d shown)%n".formatted(shown, listing.total()) : "");
  }

  /** Prints what changed since the previous view: the state, and each wave's progress line. */
  static final class Watcher {
    private final PrintWriter out;
    private final OutputFormat format;
    private final Map<Integer, String> shownWaves = new HashMap<>();
    private String shownState;

    Watcher(PrintWriter out, OutputFormat format) {
      this.out = out;
      this.format = format;
    }

    void show(JsonNode view) {
      if (format != OutputFormat.table) {
        return; // structured output: only the final view
      }
      String state = stateLine(view);
      if (!state.equals(shownState)) {
        out.println(state);
        shownState = state;
      }
      for (String line : waveLines(view)) {
        int wave = Integer.parseInt(line.substring(5, line.indexOf('/')));
        if (!line.equals(shownWaves.get(wave))) {
          out.println(line);
          shownWaves.put(wave, line);
        }
      }
      out.flush();
    }

    void flush() {
      out.flush();
    }

    int finish(JsonNode view) {
      String state = view.path("state").asText();
      int failed = view.at("/counts/failed").asInt();
      int succeeded = view.at("/counts/succeeded").asInt();
      boolean clean = state.equals("completed") && failed == 0;
      if (format == OutputFormat.table) {
        out.println(
            (clean ? "rollout " : "rollout NOT completed: ")
                + view.path("name").asText()
                + " ("
                + view.path("id").asText()
                + ") "
                + state
                + ": "
                + succeeded
                + " succeeded, "
                + failed
                + " failed"
                + reason(view));
      } else {
        try {
          if (format == OutputFormat.json) {
            out.println(Fleetctl.JSON.writeValueAsString(view));
          } else {
            out.print(Fleetctl.YAML.writeValueAsString(view));
          }
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
      out.flush();
      return clean ? 0 : Fleetctl.EXIT_ROLLOUT_NOT_COMPLETED;
    }
  }

  private static String reason(JsonNode summary) {
    JsonNode reason = summary.path("statusReason");
    return reason.isMissingNode() || reason.isNull() || reason.asText().isEmpty()
        ? ""
        : " (" + reason.asText() + ")";
  }

  /** "rollout r1 paused, wave 2/3, paused by alice (checking)", from a rollout's summary. */
  static String stateLine(JsonNode summary) {
    String line =
        "rollout "
            + summary.path("name").asText()
            + " "
            + summary.path("state").asText()
            + ", wave "
            + summary.path("currentWave").asInt()
            + "/"
            + summary.path("waves").size();
    if (summary.path("awaitingPromotion").asBoolean()) {
      line += ", awaiting promotion";
    }
    if (summary.hasNonNull("pausedBy")) {
      line += ", paused by " + summary.path("pausedBy").asText();
    }
    return line + reason(summary);
  }

  /**
   * One line per wave from a rollout's summary: "wave 2/3 [#####-----] 4/8 succeeded 3, failed 1,
   * in-flight 2" (the states with nodes, in the order pending, in-flight, succeeded, failed).
   */
  static List<String> waveLines(JsonNode summary) {
    List<String> lines = new ArrayList<>();
    JsonNode waves = summary.path("waves");
    for (JsonNode wave : waves) {
      JsonNode counts = wave.path("counts");
      int nodes = wave.path("nodes").asInt();
      int done = counts.path("succeeded").asInt() + counts.path("failed").asInt();
      String others =
          counts.properties().stream()
              .filter(e -> e.getValue().asInt() > 0)
              .map(e -> e.getKey() + " " + e.getValue().asInt())
              .collect(Collectors.joining(", "));
      lines.add(
          "wave "
              + wave.path("index").asInt()
              + "/"
              + waves.size()
              + " "
              + bar(done, nodes, 20)
              + " "
              + done
              + "/"
              + nodes
              + (others.isEmpty() ? "" : "  " + others));
    }
    return lines;
  }

  /** {@code [#####---------------]}: done of total in width characters. */
  static String bar(int done, int total, int width) {
    int filled = total == 0 ? width : (int) ((long) done * width / total);
    return "[" + "#".repeat(filled) + "-".repeat(width - filled) + "]";
  }

  /** How many in-flight or failed nodes {@code status} lists (one page); the rest are counted. */
  static final int UNUSUAL_SHOWN = 50;

  /** The first page of the rollout's nodes in flight or failed. */
  private static JsonNode unusualNodes(Fleetctl root, String id) {
    return root.client()
        .get(
            BASE
                + "/"
                + ApiClient.encode(id)
                + "/nodes"
                + ApiClient.query(Map.of("state", "in-flight,failed", "size", UNUSUAL_SHOWN)));
  }

  /**
   * A rollout's summary, then its nodes in flight or failed ({@code unusual}: a page of GET
   * .../nodes) with their reasons.
   */
  static String renderStatus(JsonNode summary, JsonNode unusual) {
    StringBuilder out = new StringBuilder();
    out.append("id:      ").append(summary.path("id").asText()).append('\n');
    out.append("name:    ").append(summary.path("name").asText()).append('\n');
    out.append("state:   ")
        .append(summary.path("state").asText())
        .append(reason(summary))
        .append('\n');
    out.append("change:  ")
        .append(change(summary.at("/change/migConfig"), summary.at("/change/driverVersion")))
        .append('\n');
    out.append("by:      ").append(summary.path("actor").asText()).append('\n');
    out.append("nodes:   ")
        .append(
            summary.path("counts").properties().stream()
                .map(e -> e.getKey() + " " + e.getValue().asInt())
                .collect(Collectors.joining(", ")))
        .append('\n');
    out.append(stateLine(summary)).append('\n');
    waveLines(summary).forEach(l -> out.append(l).append('\n'));
    Table table = new Table("wave", "node", "phase", "state", "reason");
    for (JsonNode node : unusual.path("items")) {
      table.row(
          node.path("wave").asInt(),
          node.path("node").asText(),
          NodesCommand.text(node, "phase"),
          node.path("state").asText(),
          NodesCommand.text(node, "reason"));
    }
    if (table.size() > 0) {
      out.append('\n').append(table.render());
      long more = unusual.path("total").asLong() - table.size();
      if (more > 0) {
        out.append("... and ")
            .append(more)
            .append(" more: fleetctl rollout nodes ")
            .append(summary.path("id").asText())
            .append(" --state in-flight,failed\n");
      }
    }
    return out.toString();
  }

  static String renderPlan(JsonNode plan) {
    StringBuilder out = new StringBuilder();
    out.append(
        "plan %s: %d node(s) in %d wave(s), change %s, maxUnavailable %d node(s)%s%s%n"
            .formatted(
                plan.path("name").asText(),
                plan.path("plannedNodes").asInt(),
                plan.path("waves").size(),
                change(plan.at("/change/migConfig"), plan.at("/change/driverVersion")),
                plan.path("maxUnavailableNodes").asInt(),
                plan.hasNonNull("maxZonesInFlight")
                    ? ", maxZonesInFlight " + plan.get("maxZonesInFlight").asInt()
                    : "",
                gpuBudget(plan.path("strategy"))));
    Table summary = new Table("wave", "spec", "nodes", "cumulative", "batches", "zones");
    for (JsonNode wave : plan.path("waves")) {
      java.util.SortedSet<String> zones = new java.util.TreeSet<>();
      int nodes = 0;
      for (JsonNode batch : wave.path("batches")) {
        batch.path("zones").forEach(z -> zones.add(z.asText()));
        nodes += batch.path("nodes").size();
      }
      summary.row(
          waveLabel(wave),
          wave.path("waveSpec").asText(),
          nodes,
          wave.path("cumulativeNodes").asInt(),
          wave.path("batches").size(),
          String.join(",", zones));
    }
    out.append('\n').append(summary.render());
    Table waves = new Table("wave", "batch", "node", "host-kind", "zone", "actions");
    for (JsonNode wave : plan.path("waves")) {
      String label = waveLabel(wave);
      for (JsonNode batch : wave.path("batches")) {
        for (JsonNode node : batch.path("nodes")) {
          waves.row(
              label,
              batch.path("number").asInt(),
              node.path("node").asText(),
              NodesCommand.text(node, "hostKind"),
              NodesCommand.text(node, "zone"),
              actions(node));
        }
      }
    }
    out.append('\n').append(waves.render());
    if (!plan.path("excluded").isEmpty()) {
      Table excluded = new Table("excluded", "reason", "detail");
      for (JsonNode e : plan.path("excluded")) {
        excluded.row(
            e.path("node").asText(),
            NodesCommand.text(e, "reason"),
            NodesCommand.text(e, "detail"));
      }
      out.append('\n').append(excluded.render());
    }
    if (!plan.path("capacity").isEmpty()) {
      Table capacity =
          new Table(
              "gpu-model", "gpus", "peak-gpus-offline", "instances-before", "instances-after");
      for (JsonNode c : plan.path("capacity")) {
        capacity.row(
            c.path("gpuModel").asText(),
            c.path("gpus").asInt(),
            c.path("peakGpusUnavailable").asInt(),
            counts(c.path("instancesBefore")),
            counts(c.path("instancesAfter")));
      }
      out.append('\n').append(capacity.render());
    }
    if (!plan.path("forecasts").isEmpty()) {
      out.append('\n').append(renderForecasts(plan.path("forecasts")));
    }
    return out.toString();
  }

  /**
   * Per wave, the most GPUs offline at once (overall, per label value, zone and model) and its
   * expected duration, with the kinds of node no past rollout measured (counted at the default).
   */
  static String renderForecasts(JsonNode forecasts) {
    Table table =
        new Table("wave", "gpus-offline", "per-label", "per-zone", "per-model", "expected");
    for (JsonNode f : forecasts) {
      List<String> labels = new ArrayList<>();
      f.path("peakGpusOfflineByLabel")
          .properties()
          .forEach(label -> labels.add(label.getKey() + "=" + counts(label.getValue())));
      int unmeasured = f.path("unmeasuredKinds").size();
      table.row(
          f.path("wave").asInt(),
          f.path("peakGpusOffline").asInt(),
          String.join(" ", labels),
          counts(f.path("peakGpusOfflineByZone")),
          counts(f.path("peakGpusOfflineByModel")),
          duration(f.path("expectedSeconds").asLong())
              + (unmeasured == 0 ? "" : " (" + unmeasured + " kind(s) at the default)"));
    }
    java.util.SortedSet<String> unmeasured = new java.util.TreeSet<>();
    forecasts.forEach(f -> f.path("unmeasuredKinds").forEach(k -> unmeasured.add(k.asText())));
    return table.render()
        + (unmeasured.isEmpty()
            ? ""
            : "no apply time measured in past rollouts for "
                + String.join(", ", unmeasured)
                + ": counted at the default "
                + duration(forecasts.get(0).path("defaultApplySeconds").asLong())
                + " a node\n");
  }

  /** {@code 1h05m}, {@code 20m}, {@code 45s}. */
  static String duration(long seconds) {
    if (seconds < 60) {
      return seconds + "s";
    }
    long minutes = (seconds + 59) / 60;
    return minutes < 60 ? minutes + "m" : "%dh%02dm".formatted(minutes / 60, minutes % 60);
  }

  /** {@code , maxGpusOffline 24, maxGpusOfflinePer team=16}, or nothing without a GPU budget. */
  static String gpuBudget(JsonNode strategy) {
    StringBuilder out = new StringBuilder();
    if (strategy.hasNonNull("maxGpusOffline")) {
      out.append(", maxGpusOffline ").append(strategy.get("maxGpusOffline").asInt());
    }
    if (!strategy.path("maxGpusOfflinePer").isEmpty()) {
      out.append(", maxGpusOfflinePer ")
          .append(
              strategy.path("maxGpusOfflinePer").properties().stream()
                  .map(e -> e.getKey() + "=" + e.getValue().asInt())
                  .collect(Collectors.joining(",")));
    }
    return out.toString();
  }

  /** "1 canary" for the first wave, else its number. */
  static String waveLabel(JsonNode wave) {
    return wave.path("number").asInt() + (wave.path("canary").asBoolean() ? " canary" : "");
  }

  /**
   * A node's planned actions: the MIG change of its GPUs (GPUs with the same change together,
   * {@code gpu0-7 H100-80GB: disabled -> 1g.10gb x7 (reset)}), the driver step and VFs.
   */
  static String actions(JsonNode node) {
    List<String> parts = new ArrayList<>();
    Map<String, List<Integer>> gpusByChange = new LinkedHashMap<>();
    for (JsonNode gpu : node.path("gpuChanges")) {
      String to = gpu.path("toMigEnabled").asBoolean() ? profiles(gpu.path("to")) : "MIG off";
      String from =
          gpu.path("from").isEmpty() ? gpu.path("fromMode").asText() : profiles(gpu.path("from"));
      String change =
          gpu.path("model").asText()
              + ": "
              + from
              + " -> "
              + to
              + (gpu.path("resetNeeded").asBoolean() ? " (reset)" : "");
      gpusByChange
          .computeIfAbsent(change, c -> new ArrayList<>())
          .add(gpu.path("gpuIndex").asInt());
    }
    gpusByChange.forEach((change, gpus) -> parts.add("gpu" + ranges(gpus) + " " + change));
    JsonNode driver = node.path("driver");
    if (driver.isObject()) {
      parts.add(
          "driver "
              + driver.path("fromVersion").asText("none")
              + " -> "
              + driver.path("toVersion").asText()
              + (driver.path("osUpgradeNeeded").asBoolean() ? " (OS image upgrade)" : ""));
    }
    if (node.path("vfsTouched").asInt() > 0) {
      parts.add(node.path("vfsTouched").asInt() + " VF(s) disturbed");
    }
    if (node.path("pendingSpec").isObject()) {
      parts.add(pending(node.path("pendingSpec")));
    }
    return parts.isEmpty() ? "none" : String.join("; ", parts);
  }

  /**
   * Where a node is going while it has not got there: its desired spec not applied yet ({@code
   * change pending: generation 3 wants gpu0 1g.10gb x7}), next to where it is (the actions).
   */
  static String pending(JsonNode spec) {
    List<String> wants = new ArrayList<>();
    for (JsonNode gpu : spec.path("gpus")) {
      wants.add(
          "gpu"
              + gpu.path("index").asInt()
              + " "
              + (gpu.path("migEnabled").asBoolean()
                  ? gpu.path("instances").properties().stream()
                      .map(e -> e.getKey() + " x" + e.getValue().asInt())
                      .collect(Collectors.joining(" + "))
                  : "MIG off"));
    }
    if (spec.hasNonNull("driverVersion")) {
      wants.add("driver " + spec.path("driverVersion").asText());
    }
    return "change pending: generation "
        + spec.path("generation").asLong()
        + (wants.isEmpty() ? " (no GPU or driver change)" : " wants " + String.join(", ", wants));
  }

  /** Indexes as ranges: [0,1,2,3,5] is "0-3,5". */
  static String ranges(List<Integer> indexes) {
    List<Integer> sorted = indexes.stream().sorted().toList();
    List<String> parts = new ArrayList<>();
    int i = 0;
    while (i < sorted.size()) {
      int j = i;
      while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
        j++;
      }
      parts.add(i == j ? sorted.get(i).toString() : sorted.get(i) + "-" + sorted.get(j));
      i = j + 1;
    }
    return String.join(",", parts);
  }

  /** "1g.10gb x7" or "3g.40gb x1 + 2g.20gb x2", profiles in order of first appearance. */
  static String profiles(JsonNode instances) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (JsonNode i : instances) {
      counts.merge(i.path("profile").asText("?"), 1, Integer::sum);
    }
    if (counts.isEmpty()) {
      return "no instances";
    }
    return counts.entrySet().stream()
        .map(e -> e.getKey() + " x" + e.getValue())
        .collect(Collectors.joining(" + "));
  }

  private static String counts(JsonNode map) {
    return map.properties().stream()
        .map(e -> e.getKey() + ":" + e.getValue().asInt())
        .collect(Collectors.joining(" "));
  }

  static String change(JsonNode migConfig, JsonNode driverVersion) {
    List<String> parts = new ArrayList<>();
    if (!migConfig.isMissingNode() && !migConfig.isNull()) {
      parts.add("mig " + migConfig.asText());
    }
    if (!driverVersion.isMissingNode() && !driverVersion.isNull()) {
      parts.add("driver " + driverVersion.asText());
    }
    return String.join(", ", parts);
  }

  /** pause, resume, promote, abort, rollback: POST .../{action}?reason=. */
  abstract static class Action implements Runnable {
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "ID", description = "the rollout's id")
    String id;

    abstract String reason();

    /** The API's action is the command's own name. */
    private String action() {
      return spec.name();
    }

    @Override
    public void run() {
      Fleetctl root = Fleetctl.root(spec);
      ApiClient.Answer answer =
          root.client()
              .post(
                  BASE
                      + "/"
                      + ApiClient.encode(id)
                      + "/"
                      + action()
                      + ApiClient.query(Collections.singletonMap("reason", reason())),
                  (JsonNode) null);
      PrintWriter out = spec.commandLine().getOut();
      if (answer.status() == 202) {
        out.println(
            "queued: " + answer.body().path("detail").asText("no rollout engine answered in time"));
        out.flush();
        return;
      }
      // The API answers with the rollout's summary after the action.
      Fleetctl.show(spec, answer.body(), () -> action() + ": " + stateLine(answer.body()) + "\n");
    }
  }

  abstract static class OptionalReasonAction extends Action {
    @Option(
        names = {"-r", "--reason"},
        paramLabel = "TEXT",
        description = "why, recorded in the rollout's events")
    String reason;

    @Override
    String reason() {
      return reason;
    }
  }

  abstract static class RequiredReasonAction extends Action {
    @Option(
        names = {"-r", "--reason"},
        required = true,
        paramLabel = "TEXT",
        description = "why, recorded in the rollout's events (required)")
    String reason;

    @Override
    String reason() {
      return reason;
    }
  }

  @Command(name = "pause", description = "No new node starts; nodes in flight finish.")
  static final class Pause extends OptionalReasonAction {}

  @Command(
      name = "resume",
      description = "Continue a paused rollout; failures so far are accepted.")
  static final class Resume extends OptionalReasonAction {}

  @Command(name = "promote", description = "With manualPromotion: let the next wave start.")
  static final class Promote extends OptionalReasonAction {}

  @Command(
      name = "abort",
      description = "Stop for good and free the nodes (nodes already changed keep their spec).")
  static final class Abort extends RequiredReasonAction {}

  @Command(
      name = "rollback",
      description = "Restore every touched node's previous spec, newest wave first.")
  static final class Rollback extends RequiredReasonAction {}

  static List<JsonNode> list(JsonNode array) {
    return StreamSupport.stream(array.spliterator(), false).toList();
  }
}
