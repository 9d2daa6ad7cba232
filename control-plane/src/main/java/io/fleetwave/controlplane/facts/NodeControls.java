package io.fleetwave.controlplane.facts;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.fact.ControlFact;
import io.fleetwave.events.fact.DesiredSpecSet;
import io.fleetwave.events.fact.NodeReadmitted;
import io.fleetwave.events.fact.NodeRevoked;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What fleet.control-facts says of each node, held in memory for reads that do not touch
 * PostgreSQL: its desired spec (generation and driver version) and whether it is revoked, as
 * desired_specs and revoked_nodes hold them.
 *
 * <p>Two sources. This replica's follower hands over every fact in log order, from the first
 * ({@link #followed}): folded as the tables apply them, so what it gives equals the tables once the
 * follower has applied the same facts. And this replica's own requests hand over the facts they
 * appended, once Kafka acknowledged them ({@link #appended}): a fact on the log is applied by every
 * follower, so a read on the replica that served the request shows it at once (a spec set, a
 * revocation) instead of when its follower reads it back. Those wait, by offset, until the follower
 * passes them; a read folds them over what was followed. The one partition orders every fact, so
 * once the follower has passed an offset, what it holds is exactly the log's fold up to there.
 */
@ApplicationScoped
public class NodeControls {
  /**
   * A node's revocation: when and by whom (the first revocation, until it is re-admitted); its time
   * to the microsecond, as revoked_nodes keeps it.
   */
  public record Revocation(Instant revokedAt, String revokedBy) {
    public Revocation {
      revokedAt = Objects.requireNonNull(revokedAt, "revokedAt").truncatedTo(ChronoUnit.MICROS);
    }
  }

  /**
   * The desired spec a node's row of desired_specs holds: the highest generation set, with the
   * driver version that spec asks for (null: leave the driver alone) and when it was set (to the
   * microsecond, as updated_at keeps it).
   */
  public record Desired(long generation, String driverVersion, Instant setAt) {
    public Desired {
      setAt = Objects.requireNonNull(setAt, "setAt").truncatedTo(ChronoUnit.MICROS);
    }

    static Desired of(DesiredSpecSet set) {
      return new Desired(set.spec().generation(), set.spec().driverVersion(), set.at());
    }

    /**
     * Whether {@code set} takes this row's place, as SpecFacts' upsert decides: a higher
     * generation, or the same generation set earlier (a generation set twice keeps its first time,
     * whichever fact is applied first).
     */
    boolean replacedBy(Desired set) {
      return generation < set.generation
          || (generation == set.generation && setAt.isAfter(set.setAt));
    }
  }

  /**
   * What the control facts say of one node.
   *
   * @param desired its desired spec (null: none set yet)
   * @param revocation its standing revocation, null when admitted
   */
  public record Control(Desired desired, Revocation revocation) {
    public static final Control NONE = new Control(null, null);

    /** The highest generation of a desired spec set; null when none was. */
    public Long desiredGeneration() {
      return desired == null ? null : desired.generation();
    }

    /** The driver version the desired spec asks for; null when none, or no spec. */
    public String desiredDriverVersion() {
      return desired == null ? null : desired.driverVersion();
    }

    /** This control after {@code fact} about the node, as the tables apply it. */
    Control then(ControlFact fact) {
      return switch (fact) {
        // desired_specs keeps the highest generation, whatever the order its facts come in.
        case DesiredSpecSet set -> {
          Desired next = Desired.of(set);
          yield desired == null || desired.replacedBy(next) ? new Control(next, revocation) : this;
        }
        // revoked_nodes keeps the first revocation (ON CONFLICT DO NOTHING) until a re-admission.
        case NodeRevoked revoked ->
            revocation != null
                ? this
                : new Control(desired, new Revocation(revoked.revokedAt(), revoked.revokedBy()));
        case NodeReadmitted readmitted -> new Control(desired, null);
        default -> this;
      };
    }
  }

  private final Map<String, Control> followed = new HashMap<>();

  /** Facts this replica appended that the follower has not passed yet: by node, by offset. */
  private final Map<String, NavigableMap<Long, ControlFact>> appended = new HashMap<>();

  /** The node of each fact in {@link #appended}, by offset (to drop those the follower passed). */
  private final NavigableMap<Long, String> appendedNodes = new TreeMap<>();

  /** The offset after the last fact the follower handed over. */
  private long followedTo;

  /** The fact at {@code offset}, applied by this replica's follower (in log order). */
  public synchronized void followed(long offset, Envelope<ControlFact> fact) {
    if (concerns(fact.data())) {
      String node = nodeOf(fact);
      followed.put(node, followed.getOrDefault(node, Control.NONE).then(fact.data()));
    }
    followedTo = Math.max(followedTo, offset + 1);
    Map<Long, String> passed = appendedNodes.headMap(followedTo);
    passed.forEach(
        (at, node) -> {
          NavigableMap<Long, ControlFact> ofNode = appended.get(node);
          ofNode.remove(at);
          if (ofNode.isEmpty()) {
            appended.remove(node);
          }
        });
    passed.clear();
  }

  /** The fact at {@code offset}, appended by a request of this replica and acknowledged. */
  public synchronized void appended(long offset, Envelope<ControlFact> fact) {
    if (offset >= followedTo && concerns(fact.data())) {
      String node = nodeOf(fact);
      appended.computeIfAbsent(node, n -> new TreeMap<>()).put(offset, fact.data());
      appendedNodes.put(offset, node);
    }
  }

  /** What the facts followed and appended say of {@code node}. */
  public synchronized Control of(String node) {
    Control control = followed.getOrDefault(node, Control.NONE);
    for (ControlFact fact : appended.getOrDefault(node, Collections.emptyNavigableMap()).values()) {
      control = control.then(fact);
    }
    return control;
  }

  /** The node a fact is about: a spec names its own; the others are about their subject. */
  private static String nodeOf(Envelope<ControlFact> fact) {
    return fact.data() instanceof DesiredSpecSet set ? set.spec().node() : fact.subject();
  }

  private static boolean concerns(ControlFact fact) {
    return fact instanceof DesiredSpecSet
        || fact instanceof NodeRevoked
        || fact instanceof NodeReadmitted;
  }
}
