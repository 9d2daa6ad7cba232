package io.fleetwave.bench;

import io.fleetwave.core.projection.BatchChanges;
import io.fleetwave.core.projection.NodePosition;
import io.fleetwave.core.projection.ProjectionFold;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.testfixtures.events.NodeRegisteredBuilder;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The projection's fold over one consumer batch: {@code batch} events of {@code nodes} nodes in log
 * order (each node registers, accepts and applies a spec, then heartbeats), as the writer folds
 * them under its row locks. Baselines of the same run: the same batch when every event is a
 * duplicate (the stored positions are already past it: the redelivery path, which only compares
 * positions), and an empty batch (the fold's fixed cost).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ProjectionFoldBench {
  @Param({"500"})
  public int batch;

  @Param({"100"})
  public int nodes;

  private List<Envelope<NodeEvent>> events;
  private Map<String, NodePosition> ahead;

  @Setup
  public void buildBatch() {
    Instant start = Instant.parse("2026-12-01T00:00:00Z");
    events = new ArrayList<>(batch);
    ahead = new HashMap<>();
    for (int i = 0; i < batch; i++) {
      int node = i % nodes;
      int seq = i / nodes + 1;
      String name = String.format("gpu-node-%04d", node);
      NodeEvent data =
          switch (seq) {
            case 1 -> NodeRegisteredBuilder.forHost(name, HostKind.UBUNTU).build();
            case 2 -> new SpecAccepted(1, List.of());
            case 3 -> new SpecApplied(1);
            default -> new Heartbeat("boot-" + name, seq * 10L);
          };
      Envelope<NodeEvent> event =
          Envelope.of(
              URI.create("fleetwave:agent/" + name), name, start.plusSeconds(i), 1, seq, data);
      events.add(event);
      ahead.put(name, new NodePosition(2, 0));
    }
    BatchChanges all = ProjectionFold.fold(Map.of(), events);
    BatchChanges none = ProjectionFold.fold(ahead, events);
    // Each benchmark must take the path it is named for.
    if (all.applied().size() != batch || none.skipped() != batch) {
      throw new IllegalStateException(
          "expected all " + batch + " applied and all skipped, got " + all + " and " + none);
    }
  }

  @Benchmark
  public BatchChanges fold() {
    return ProjectionFold.fold(Map.of(), events);
  }

  /** Baseline: the same batch, every event a duplicate of what is stored. */
  @Benchmark
  public BatchChanges baselineDuplicates() {
    return ProjectionFold.fold(ahead, events);
  }

  /** Baseline: an empty batch. */
  @Benchmark
  public BatchChanges baselineEmpty() {
    return ProjectionFold.fold(Map.of(), List.of());
  }
}
