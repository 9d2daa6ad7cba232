package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.projection.NodeFacts;
import io.fleetwave.core.projection.BatchChanges;
import io.fleetwave.core.projection.NodeChange;
import io.fleetwave.core.projection.NodePosition;
import io.fleetwave.core.projection.ProjectionFold;
import io.fleetwave.core.projection.ReconcileState;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The fleet held in memory: each node as the projection's tables hold it (its position, its facts,
 * last-seen time, GPUs and reconcile state), and the summary's counts over them, kept as nodes
 * change, so that a summary copies a few small maps instead of scanning every GPU row, and nodes
 * (one, or a page of the list) and the version distribution ({@link FleetVersions}) are read
 * without PostgreSQL. Filled from the tables ({@link FleetTallyRows}), then moved by the
 * projection's own fold ({@link ProjectionFold}) over the records the projection accepts, so it
 * holds what the tables will hold once the projection has written them. One writer, any readers.
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

    static CountedGpu of(NodeView.GpuView gpu) {
      return new CountedGpu(gpu.pciDeviceId(), gpu.product(), gpu.migMode(), gpu.health());
    }
  }

  /**
   * One node as held: where its projection stands, the node as {@code NodeQueries.find} reads it
   * but for what the control facts add ({@link NodeView#withControl}: here as if it had no desired
   * spec and no revocation), and its reconcile state (null before its first progress event) without
   * its steps (they change nothing a read shows, and would be most of the memory).
   */
  public record HeldNode(NodePosition position, NodeView node, ReconcileState reconcile) {
    public HeldNode {
      Objects.requireNonNull(position, "position");
      Objects.requireNonNull(node, "node");
      // What the control facts add is left out, so that a node read from the tables and one
      // folded from the log are equal records. Those the fold makes (every changed node of every
      // batch) have it left out already: no copy for them.
      if (node.desiredGeneration() != null
          || node.appliedGeneration() != 0
          || !node.converged()
          || node.revokedAt() != null) {
        node = node.withControl(null, null, null, null);
      }
      reconcile = reconcile == null ? null : withoutSteps(reconcile);
    }

    /** A node the projection has a row for and no applied event yet (its ensured row). */
    static HeldNode ensured(String name) {
      return new HeldNode(
          NodePosition.NONE, NodeView.observed(name, NodeFacts.NONE, null, List.of()), null);
    }

    /** The node as a read shows it, with what the control facts say of it. */
    public NodeView read(Long desiredGeneration, Instant revokedAt, String revokedBy) {
      return node.withControl(desiredGeneration, revokedAt, revokedBy, reconcile);
    }

    private static ReconcileState withoutSteps(ReconcileState state) {
      return state.steps().isEmpty()
          ? state
          : new ReconcileState(
              state.acceptedGeneration(),
              state.appliedGeneration(),
              state.gate(),
              state.gateGeneration(),
              state.gateReason(),
              state.bootId(),
              state.bootPending(),
              state.failure(),
              state.rejection(),
              List.of());
    }
  }

  /** The GPUs of one model (upper-cased PCI device id): how many, on how many nodes, by product. */
  private static final class ModelCount {
    private long gpus;
    private long nodes;
    private final TreeMap<String, Long> products = new TreeMap<>();
  }

  private final Map<String, HeldNode> nodes = new HashMap<>();

  /** Every node's name, in order (nodes are never taken out): a listing's order. */
  private final TreeSet<String> names = new TreeSet<>();

  /**
   * What each node is grouped by in the version distribution, kept as nodes change (their facts and
   * GPUs change only where {@link #put} sets them), so a distribution does not make each node's MIG
   * layout again.
   */
  private final Map<String, FleetVersions.Versions> versions = new HashMap<>();

  private final Map<String, Long> hostKinds = new TreeMap<>();
  private final Map<String, Long> migModes = new TreeMap<>();
  private final Map<String, Long> health = new TreeMap<>();
  private final Map<String, ModelCount> models = new HashMap<>();
  private long gpus;

  /**
   * One copy of each value that many nodes share (models, products, modes, OS and driver versions,
   * zones, label sets): every decoded event and every row read carries its own copies, most of the
   * memory of a fleet whose nodes look alike. Values are not taken out when no node holds them any
   * more, so the map is bounded ({@link #SHARED_MOST}): values one node alone has (a label naming
   * the host) would otherwise pile up as nodes change; past the bound a new value is held as given.
   */
  private final Map<Object, Object> shared = new HashMap<>();

  /** The most values {@link #shared} holds. */
  static final int SHARED_MOST = 50_000;

  /**
   * Nodes with a record the view applied and PostgreSQL refused (dead-lettered), until the
   * comparison finds the view and the tables at the same position again: what the view holds of
   * them is not what the tables will hold, so their reads go to the tables meanwhile.
   */
  private final Set<String> refusedByTables = new HashSet<>();

  /** Sets a node as the tables hold it (a load, or a repair after a comparison). */
  public synchronized void put(String node, HeldNode held) {
    Objects.requireNonNull(held, "held");
    held = shared(held);
    HeldNode before = nodes.put(node, held);
    if (before != null) {
      count(before, -1);
    } else {
      names.add(node);
    }
    count(held, 1);
    versions.put(node, one(shared, FleetVersions.Versions.of(held.node())));
  }

  /** A record of {@code node} was refused by PostgreSQL: read it from the tables for now. */
  public synchronized void refusedByTables(String node) {
    if (nodes.containsKey(node)) {
      refusedByTables.add(node);
    }
  }

  /** Whether the node has a record PostgreSQL refused that the comparison has not taken back. */
  public synchronized boolean isRefusedByTables(String node) {
    return refusedByTables.contains(node);
  }

  /** The node as held; null when the tally has no such node. */
  public synchronized HeldNode get(String node) {
    return nodes.get(node);
  }

  /** How many values are held once for all nodes ({@link #shared}). */
  synchronized int sharedValues() {
    return shared.size();
  }

  /**
   * One page of the nodes {@code filter} passes, in name order (Java's order of the names: the
   * caller checks it is the database's), and how many pass in all; empty when a node that passes
   * has a record PostgreSQL refused (its row is the tables' to show).
   */
  public synchronized Optional<Listed> list(Predicate<NodeView> filter, long offset, int size) {
    List<HeldNode> page = new ArrayList<>();
    long total = 0;
    for (String name : names) {
      HeldNode held = nodes.get(name);
      if (!filter.test(held.node())) {
        continue;
      }
      if (refusedByTables.contains(name)) {
        return Optional.empty();
      }
      if (total >= offset && page.size() < size) {
        page.add(held);
      }
      total++;
    }
    return Optional.of(new Listed(page, total));
  }

  /** A page of held nodes and the number of nodes that passed the filter in all. */
  public record Listed(List<HeldNode> nodes, long total) {}

  /**
   * The version distribution of the nodes held in {@code zone} and {@code pool} (null: any), as
   * {@code reports.version_distribution} counts it, with what the desired spec of each node asks
   * ({@code desired}, by name); empty while any node has a record PostgreSQL refused: where such a
   * node stands in the tables (its zone and pool too) is theirs to say.
   */
  public synchronized Optional<List<VersionDistribution>> versions(
      Function<String, FleetVersions.Desired> desired, String zone, String pool) {
    if (!refusedByTables.isEmpty()) {
      return Optional.empty();
    }
    FleetVersions.Counts counts = new FleetVersions.Counts();
    versions.forEach(
        (name, of) -> {
          if (of.in(zone, pool)) {
            HeldNode held = nodes.get(name);
            counts.add(
                of, FleetVersions.drifted(held.node(), held.reconcile(), desired.apply(name)));
          }
        });
    return Optional.of(counts.rows());
  }

  /** Every node as held now. */
  synchronized Map<String, HeldNode> nodes() {
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
    Map<String, ReconcileState> reconciles = new HashMap<>();
    for (String subject : subjects) {
      HeldNode held = nodes.get(subject);
      if (held == null) {
        put(subject, HeldNode.ensured(subject));
        continue;
      }
      positions.put(subject, held.position());
      if (held.reconcile() != null) {
        reconciles.put(subject, held.reconcile());
      }
    }
    BatchChanges changes = ProjectionFold.fold(positions, reconciles, events);
    for (NodeChange change : changes.nodes()) {
      HeldNode before = nodes.get(change.node());
      // PostgreSQL keeps microseconds; the client sends an instant's nanoseconds truncated.
      NodeView moved =
          NodeView.observed(
              before.node().name(),
              before.node().facts(),
              change.lastSeen().truncatedTo(ChronoUnit.MICROS),
              before.node().gpus());
      ReconcileState reconcile = change.reconcile().orElse(before.reconcile());
      if (change.facts().isEmpty() && change.inventory().isEmpty()) {
        // Heartbeats and progress: the counts stay; nothing the tally shares is new.
        nodes.put(change.node(), new HeldNode(change.position(), moved, reconcile));
        continue;
      }
      NodeView registered = change.facts().map(facts -> registered(moved, facts)).orElse(moved);
      NodeView node =
          change
              .inventory()
              .map(inventory -> inventoried(registered, inventory))
              .orElse(registered);
      put(change.node(), new HeldNode(change.position(), node, reconcile));
    }
    return changes.applied().size();
  }

  /** The summary of the nodes held now, in the form of the SQL count (SummaryQueries). */
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

  /** The node with the facts of its NodeRegistered, as the columns the projection writes read. */
  private static NodeView registered(NodeView node, NodeRegistered facts) {
    return NodeView.observed(node.name(), NodeFacts.of(facts), node.lastSeen(), node.gpus());
  }

  /** The node with the GPUs of an inventory, by index, each as its row of gpus reads back. */
  private static NodeView inventoried(NodeView node, GpuInventoryReported inventory) {
    List<NodeView.GpuView> gpus =
        inventory.gpus().stream()
            .sorted(Comparator.comparingInt(Gpu::index))
            .map(FleetTally::gpuView)
            .toList();
    return NodeView.observed(node.name(), node.facts(), node.lastSeen(), gpus);
  }

  /** A GPU as its row reads back (InventoryRows writes it): its instances by placement. */
  private static NodeView.GpuView gpuView(Gpu gpu) {
    return new NodeView.GpuView(
        gpu.index(),
        gpu.uuid(),
        gpu.pciBusId(),
        gpu.pciDeviceId(),
        gpu.product(),
        gpu.memoryMiB(),
        gpu.migCapable(),
        gpu.migMode().wireName(),
        gpu.migModePending().wireName(),
        gpu.instances().stream()
            .sorted(Comparator.comparingInt(GpuInstance::placementStart))
            .map(
                instance ->
                    new NodeView.InstanceView(
                        instance.profile(),
                        new NodeView.Placement(
                            instance.placementStart(), instance.placementSize())))
            .toList(),
        gpu.vfsTotal(),
        gpu.vfsEnabled(),
        gpu.health().wireName());
  }

  /** The node with one copy of each value it shares with others ({@link #shared}). */
  private HeldNode shared(HeldNode held) {
    NodeView node = held.node();
    List<NodeView.GpuView> gpus = new ArrayList<>(node.gpus().size());
    for (NodeView.GpuView gpu : node.gpus()) {
      gpus.add(
          new NodeView.GpuView(
              gpu.index(),
              gpu.uuid(),
              gpu.pciBusId(),
              one(shared, gpu.pciDeviceId()),
              one(shared, gpu.product()),
              gpu.memoryMiB(),
              gpu.migCapable(),
              one(shared, gpu.migMode()),
              one(shared, gpu.migModePending()),
              one(shared, gpu.instances()),
              gpu.vfsTotal(),
              gpu.vfsEnabled(),
              one(shared, gpu.health())));
    }
    return new HeldNode(
        held.position(),
        NodeView.observed(node.name(), shared(node.facts()), node.lastSeen(), gpus),
        held.reconcile());
  }

  /** The facts with one copy of each value they share with other nodes' ({@link #shared}). */
  private NodeFacts shared(NodeFacts facts) {
    return new NodeFacts(
        one(shared, facts.hostKind()),
        one(shared, facts.osId()),
        one(shared, facts.osVersion()),
        one(shared, facts.kernel()),
        facts.readOnlyRoot(),
        facts.systemd(),
        one(shared, facts.driverRoot()),
        one(shared, facts.deviceRoot()),
        one(shared, facts.driverProvider()),
        one(shared, facts.driverVersion()),
        one(shared, facts.zone()),
        one(shared, facts.labels()),
        one(shared, facts.reasons()));
  }

  /** The one copy of {@code value} in {@code shared} (values shared are immutable). */
  @SuppressWarnings("unchecked")
  private static <T> T one(Map<Object, Object> shared, T value) {
    if (value == null || shared == null) {
      return value;
    }
    Object held = shared.get(value);
    if (held == null && shared.size() < SHARED_MOST) {
      shared.put(value, value);
      return value;
    }
    return held == null ? value : (T) held;
  }

  /** Adds ({@code sign} 1) or takes away (-1) what one node contributes to the counts. */
  private void count(HeldNode held, int sign) {
    NodeView node = held.node();
    String hostKind = node.facts().hostKind();
    add(hostKinds, hostKind == null ? UNREGISTERED : hostKind, sign);
    Set<String> nodeModels = new LinkedHashSet<>();
    for (NodeView.GpuView view : node.gpus()) {
      CountedGpu gpu = CountedGpu.of(view);
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
   * events folded, so the same node. A node that differs anyway is set as the tables hold it (they
   * are the durable copy); nodes at different positions are passed over, as the tally and the
   * tables each move at their own pace.
   */
  public synchronized Comparison compareWith(Map<String, HeldNode> tables) {
    int compared = 0;
    int passedOver = 0;
    List<String> repaired = new ArrayList<>();
    for (Map.Entry<String, HeldNode> row : tables.entrySet()) {
      HeldNode held = nodes.get(row.getKey());
      if (held == null || !held.position().equals(row.getValue().position())) {
        passedOver++;
        continue;
      }
      compared++;
      refusedByTables.remove(row.getKey());
      if (!held.equals(row.getValue())) {
        repaired.add(row.getKey());
        put(row.getKey(), row.getValue());
      }
    }
    return new Comparison(compared, passedOver, repaired);
  }
}
