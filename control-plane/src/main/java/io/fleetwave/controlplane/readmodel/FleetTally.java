package io.fleetwave.controlplane.readmodel;

import io.fleetwave.core.projection.BatchChanges;
import io.fleetwave.core.projection.NodeChange;
import io.fleetwave.core.projection.NodePosition;
import io.fleetwave.core.projection.ProjectionFold;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.NodeEvent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The fleet as its summary counts it, held in memory: each node's position, host kind and GPUs, and
 * the counts over them, kept as nodes change, so that a summary copies a few small maps instead of
 * scanning every GPU row. Filled from the tables ({@link FleetTallyRows}), then moved by the
 * projection's own fold ({@link ProjectionFold}) over the records the projection accepts, so it
 * counts what the tables will hold once the projection has written them. One writer, any readers.
 */
public final class FleetTally {
  /** The host kind a node counts under before its first NodeRegistered (as the SQL count). */
  static final String UNREGISTERED = "unregistered";

  /** What the summary counts of one GPU: its row of {@code gpus}, reduced to those columns. */
  public record CountedGpu(String pciDeviceId, String product, String migMode, String health) {
    public CountedGpu {
      Objects.requireNonNull(pciDeviceId, "pciDeviceId");
      Objects.requireNonNull(product, "product");
      Objects.requireNonNull(migMode, "migMode");
      Objects.requireNonNull(health, "health");
    }

    /** The columns the projection writes for this GPU (ProjectionTables' GPU rows). */
    public static CountedGpu of(Gpu gpu) {
      return new CountedGpu(
          gpu.pciDeviceId(), gpu.product(), gpu.migMode().wireName(), gpu.health().wireName());
    }
  }

  /** The order a node's GPUs are kept in: the summary does not count by index. */
  private static final Comparator<CountedGpu> CANONICAL =
      Comparator.comparing(CountedGpu::pciDeviceId)
          .thenComparing(CountedGpu::product)
          .thenComparing(CountedGpu::migMode)
          .thenComparing(CountedGpu::health);

  /**
   * One node as counted: where its projection stands, its host kind (null before its first
   * NodeRegistered) and its GPUs, in one order whatever the order reported (so that two equal nodes
   * are equal records).
   */
  public record CountedNode(NodePosition position, String hostKind, List<CountedGpu> gpus) {
    public CountedNode {
      Objects.requireNonNull(position, "position");
      // A node's own list again (a heartbeat moves only the position) is kept as it is.
      gpus = inOrder(gpus) ? List.copyOf(gpus) : gpus.stream().sorted(CANONICAL).toList();
    }

    private static boolean inOrder(List<CountedGpu> gpus) {
      for (int i = 1; i < gpus.size(); i++) {
        if (CANONICAL.compare(gpus.get(i - 1), gpus.get(i)) > 0) {
          return false;
        }
      }
      return true;
    }

    /** A node the projection has a row for and no applied event yet (its ensured row). */
    static final CountedNode ENSURED = new CountedNode(NodePosition.NONE, null, List.of());
  }

  /** The GPUs of one model (upper-cased PCI device id): how many, on how many nodes, by product. */
  private static final class ModelCount {
    private long gpus;
    private long nodes;
    private final TreeMap<String, Long> products = new TreeMap<>();
  }

  private final Map<String, CountedNode> nodes = new HashMap<>();
  private final Map<String, Long> hostKinds = new TreeMap<>();
  private final Map<String, Long> migModes = new TreeMap<>();
  private final Map<String, Long> health = new TreeMap<>();
  private final Map<String, ModelCount> models = new HashMap<>();
  private long gpus;

  /**
   * One copy of each text a GPU is counted by: a fleet has a few models and products, and every
   * decoded inventory carries its own copies of their strings (a third of the tally's memory).
   */
  private final Map<String, String> texts = new HashMap<>();

  /** Sets a node as the tables hold it (a load, or a repair after a comparison). */
  public synchronized void put(String node, CountedNode counted) {
    Objects.requireNonNull(counted, "counted");
    counted = shared(counted);
    CountedNode before = nodes.put(node, counted);
    if (before != null) {
      count(before, -1);
    }
    count(counted, 1);
  }

  /** The node as counted; null when the tally has no such node. */
  public synchronized CountedNode get(String node) {
    return nodes.get(node);
  }

  /** Every node as counted now. */
  synchronized Map<String, CountedNode> nodes() {
    return Map.copyOf(nodes);
  }

  /**
   * Applies accepted records of the log, in log order, as the projection applies them: every
   * record's node has a row from then on, and an event counts only when its (epoch, seq) comes
   * after the node's position ({@link ProjectionFold}), so duplicates, replays and records the
   * tables already hold (read again after a load) change nothing.
   *
   * @return how many of the events applied
   */
  public synchronized int apply(List<Envelope<NodeEvent>> events) {
    if (events.isEmpty()) {
      return 0;
    }
    Set<String> subjects = new LinkedHashSet<>();
    events.forEach(event -> subjects.add(event.subject()));
    Map<String, NodePosition> positions = new HashMap<>();
    for (String subject : subjects) {
      CountedNode counted = nodes.get(subject);
      if (counted == null) {
        put(subject, CountedNode.ENSURED);
      } else {
        positions.put(subject, counted.position());
      }
    }
    BatchChanges changes = ProjectionFold.fold(positions, events);
    for (NodeChange change : changes.nodes()) {
      CountedNode before = nodes.get(change.node());
      if (change.facts().isEmpty() && change.inventory().isEmpty()) {
        // Heartbeats and progress: only the position moves, the counts stay.
        nodes.put(
            change.node(), new CountedNode(change.position(), before.hostKind(), before.gpus()));
        continue;
      }
      put(
          change.node(),
          new CountedNode(
              change.position(),
              change.facts().map(facts -> facts.hostKind().wireName()).orElse(before.hostKind()),
              change
                  .inventory()
                  .map(inventory -> inventory.gpus().stream().map(CountedGpu::of).toList())
                  .orElse(before.gpus())));
    }
    return changes.applied().size();
  }

  /** The summary of the nodes counted now, in the form of the SQL count (SummaryQueries). */
  public synchronized FleetSummary summary() {
    List<FleetSummary.GpuModelCount> byModel = new ArrayList<>();
    models.forEach(
        (id, count) ->
            byModel.add(
                new FleetSummary.GpuModelCount(
                    "0x" + id.substring(2), count.products.firstKey(), count.gpus, count.nodes)));
    byModel.sort(Comparator.comparing(FleetSummary.GpuModelCount::pciDeviceId));
    return new FleetSummary(
        nodes.size(),
        gpus,
        new TreeMap<>(hostKinds),
        byModel,
        new TreeMap<>(migModes),
        new TreeMap<>(health));
  }

  private CountedNode shared(CountedNode counted) {
    List<CountedGpu> gpus = new ArrayList<>(counted.gpus().size());
    for (CountedGpu gpu : counted.gpus()) {
      gpus.add(
          new CountedGpu(
              text(gpu.pciDeviceId()),
              text(gpu.product()),
              text(gpu.migMode()),
              text(gpu.health())));
    }
    return new CountedNode(counted.position(), counted.hostKind(), gpus);
  }

  private String text(String value) {
    return texts.computeIfAbsent(value, v -> v);
  }

  /** Adds ({@code sign} 1) or takes away (-1) what one node contributes to the counts. */
  private void count(CountedNode node, int sign) {
    add(hostKinds, node.hostKind() == null ? UNREGISTERED : node.hostKind(), sign);
    Set<String> nodeModels = new LinkedHashSet<>();
    for (CountedGpu gpu : node.gpus()) {
      gpus += sign;
      add(migModes, gpu.migMode(), sign);
      add(health, gpu.health(), sign);
      String id = gpu.pciDeviceId().toUpperCase(Locale.ROOT);
      nodeModels.add(id);
      ModelCount model = models.computeIfAbsent(id, k -> new ModelCount());
      model.gpus += sign;
      add(model.products, gpu.product(), sign);
    }
    for (String id : nodeModels) {
      ModelCount model = models.get(id);
      model.nodes += sign;
      if (model.gpus == 0) {
        models.remove(id);
      }
    }
  }

  /** Moves a count, dropping a key that reaches zero (a GROUP BY lists no empty group). */
  private static void add(Map<String, Long> counts, String key, int sign) {
    long count = counts.getOrDefault(key, 0L) + sign;
    if (count == 0) {
      counts.remove(key);
    } else {
      counts.put(key, count);
    }
  }

  /**
   * What a comparison with the tables found: nodes compared (both at the same position), nodes
   * passed over (one of the two has moved on, or the tally has not reached the node yet), and the
   * nodes that differed at the same position, each set as the tables hold it.
   */
  public record Comparison(int compared, int passedOver, List<String> repaired) {}

  /**
   * Compares every node of {@code tables} that the tally holds at the same position: the same
   * events folded, so the same host kind and GPUs. A node that differs anyway is set as the tables
   * hold it (they are the durable copy); nodes at different positions are passed over, as the tally
   * and the tables each move at their own pace.
   */
  public synchronized Comparison compareWith(Map<String, CountedNode> tables) {
    int compared = 0;
    int passedOver = 0;
    List<String> repaired = new ArrayList<>();
    for (Map.Entry<String, CountedNode> row : tables.entrySet()) {
      CountedNode held = nodes.get(row.getKey());
      if (held == null || !held.position().equals(row.getValue().position())) {
        passedOver++;
        continue;
      }
      compared++;
      if (!held.equals(row.getValue())) {
        repaired.add(row.getKey());
        put(row.getKey(), row.getValue());
      }
    }
    return new Comparison(compared, passedOver, repaired);
  }
}
