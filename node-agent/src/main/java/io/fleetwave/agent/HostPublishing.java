package io.fleetwave.agent;

import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.publish.EpochFile;
import io.fleetwave.agent.publish.EventPublisher;
import io.fleetwave.agent.publish.MemoryOutbox;
import io.fleetwave.agent.publish.Outbox;
import io.fleetwave.agent.publish.SpoolFile;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Where a real agent keeps its undelivered events and learns its previous epoch, by what the host
 * allows. Writable host with a state directory: the spool file and the epoch counter there (the
 * topic is read only when the counter is missing: first run, new disk). Read-only host (Talos,
 * COS): a memory queue, and the epoch of the node's newest event on the topic. Either way the new
 * epoch is above the previous one, whatever the clock says.
 */
final class HostPublishing {
  private static final System.Logger LOG = System.getLogger(HostPublishing.class.getName());

  private HostPublishing() {}

  /**
   * Whether {@link #of} will ask for the topic's newest epoch: no writable state directory, or no
   * epoch kept in it. The agent then starts that read early, with the producer.
   */
  static boolean readsTopic(HostFacts facts) {
    return facts
        .writableStateDirectory()
        .map(dir -> new EpochFile(dir).last().isEmpty())
        .orElse(true);
  }

  /**
   * @param lastOnTopic the node's newest epoch on the topic; throws (naming the broker and the
   *     bound) when the broker does not answer, and the agent then does not start
   */
  static NodeAgent.Publishing of(
      HostFacts facts,
      EventPublisher publisher,
      long spoolBytes,
      long memoryQueueBytes,
      Supplier<OptionalLong> lastOnTopic) {
    Optional<Path> stateDirectory = facts.writableStateDirectory();
    if (stateDirectory.isPresent()) {
      EpochFile epochs = new EpochFile(stateDirectory.get());
      OptionalLong kept = epochs.last();
      long previous = kept.isPresent() ? kept.getAsLong() : lastOnTopic.get().orElse(0);
      Outbox spool = SpoolFile.open(stateDirectory.get(), spoolBytes);
      said(facts, spool, previous, kept.isPresent() ? epochs.file().toString() : "the topic");
      return new NodeAgent.Publishing(publisher, spool, previous, epochs::remember);
    }
    long previous = lastOnTopic.get().orElse(0);
    Outbox queue = new MemoryOutbox(memoryQueueBytes);
    said(facts, queue, previous, "the topic (no writable state directory)");
    return new NodeAgent.Publishing(publisher, queue, previous, epoch -> {});
  }

  private static void said(HostFacts facts, Outbox outbox, long previous, String from) {
    LOG.log(
        Level.INFO,
        "node {0}: events wait in the {1} while Kafka is unreachable; previous epoch {2} (from"
            + " {3})",
        facts.hostname(),
        outbox.describe(),
        previous,
        from);
  }
}
