package io.fleetwave.agent.publish;

import io.fleetwave.agent.logging.LogFields;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.node.AgentStopping;
import io.fleetwave.events.node.EventsDropped;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.GateReleased;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One readable line per event a node publishes ({@code node gpu-7 event SpecApplied epoch=...
 * seq=42 gen=7 applied in 1.2 s}) and per spec or command it receives, on the logger {@value
 * #LOGGER}: a fleet simulated in one JVM turns that logger down, a real agent keeps it at INFO. One
 * instance per node run: it remembers when the latest spec was accepted, to say how long it took to
 * apply.
 */
public final class EventLines {
  /** The logger of the per-event lines. */
  public static final String LOGGER = "io.fleetwave.agent.events";

  private static final System.Logger LOG = System.getLogger(LOGGER);

  private final String node;
  private long acceptedGeneration = -1;
  private Instant acceptedAt;

  public EventLines(String node) {
    this.node = node;
  }

  /** The line of one published event (called in publishing order, under the stream's lock). */
  void published(long epoch, long seq, Instant at, NodeEvent event) {
    if (!LOG.isLoggable(Level.INFO)) {
      return;
    }
    String type = event.getClass().getSimpleName();
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("node", node);
    fields.put("event", type);
    fields.put("epoch", epoch);
    fields.put("seq", seq);
    LOG.log(
        Level.INFO,
        "node {0} event {1} epoch={2} seq={3} {4}",
        node,
        type,
        Long.toString(epoch),
        Long.toString(seq),
        describe(event, at),
        new LogFields(fields));
  }

  /** The line of a spec or command the node received, before it is verified. */
  public static void received(String node, CommandEnvelope command) {
    String type = command.data().getClass().getSimpleName();
    long generation = command.data().generation();
    LOG.log(
        Level.INFO,
        "node {0} received {1} gen={2} id={3}",
        node,
        type,
        Long.toString(generation),
        command.id(),
        new LogFields(
            Map.of("node", node, "command", type, "generation", generation, "id", command.id())));
  }

  /** What the event says, in a few words. */
  String describe(NodeEvent event, Instant at) {
    return switch (event) {
      case NodeRegistered e ->
          e.hostKind().wireName()
              + " "
              + e.osId()
              + " "
              + e.osVersion()
              + " kernel="
              + e.kernel()
              + " driver="
              + (e.driverVersion() == null ? "none" : e.driverVersion())
              + " zone="
              + e.zone();
      case GpuInventoryReported e -> "gpus=" + e.gpus().size();
      case Heartbeat e -> "uptime=" + e.uptimeSeconds() + "s";
      case AgentStopping e -> "reason=" + e.reason();
      case NodeBooted e -> "boot=" + e.bootId() + " previous=" + e.previousBootId();
      case SpecAccepted e -> {
        acceptedGeneration = e.generation();
        acceptedAt = at;
        yield "gen=" + e.generation() + " steps=" + e.steps().size();
      }
      case SpecRejected e -> "gen=" + e.generation() + " code=" + e.code() + ": " + e.reason();
      case StepStarted e -> "gen=" + e.generation() + " step=" + step(e.step());
      case StepSucceeded e ->
          "gen=" + e.generation() + " step=" + step(e.step()) + " in " + seconds(e.elapsedMillis());
      case StepFailed e ->
          "gen="
              + e.generation()
              + " step="
              + step(e.step())
              + " after "
              + seconds(e.elapsedMillis())
              + ": "
              + e.reason();
      case SpecApplied e ->
          "gen="
              + e.generation()
              + " applied"
              + (e.generation() == acceptedGeneration
                  ? " in " + seconds(Duration.between(acceptedAt, at).toMillis())
                  : "");
      case GateHeld e -> "gen=" + e.generation() + ": " + e.reason();
      case GateReleased e -> "gen=" + e.generation();
      case EventsDropped e ->
          "seq " + e.fromSeq() + ".." + e.toSeq() + " (" + e.count() + " events): " + e.reason();
    };
  }

  private static String step(PlannedStep step) {
    return step.kind().wireName() + (step.gpu() == null ? "" : " gpu=" + step.gpu());
  }

  private static String seconds(long millis) {
    return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }
}
