package io.fleetwave.controlplane.fleetview;

import io.fleetwave.controlplane.config.FleetViewConfig;
import io.fleetwave.controlplane.facts.FactsCaughtUp;
import io.fleetwave.controlplane.facts.NodeControls;
import io.fleetwave.controlplane.kafka.KafkaClientConfig;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageRequest;
import io.fleetwave.controlplane.projection.DeadLetters;
import io.fleetwave.controlplane.projection.NodeEventAuthenticity;
import io.fleetwave.controlplane.readmodel.FleetSummary;
import io.fleetwave.controlplane.readmodel.FleetTally;
import io.fleetwave.controlplane.readmodel.FleetTally.HeldNode;
import io.fleetwave.controlplane.readmodel.FleetTallyRows;
import io.fleetwave.controlplane.readmodel.FleetVersions;
import io.fleetwave.controlplane.readmodel.NodeFilter;
import io.fleetwave.controlplane.readmodel.NodeListView;
import io.fleetwave.controlplane.readmodel.NodeQueries;
import io.fleetwave.controlplane.readmodel.NodeView;
import io.fleetwave.controlplane.readmodel.VersionDistribution;
import io.fleetwave.core.projection.DecodedRecord;
import io.fleetwave.core.projection.NodePosition;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.node.NodeEvent;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The fleet each replica holds in memory, read without PostgreSQL: a {@link FleetTally} loaded from
 * the tables (with what the control facts say of each node: {@link NodeControls}, which this
 * replica's follower of fleet.control-facts keeps), then moved by every record of fleet.node-events
 * that the projection accepts (its authenticity check, its fold), read by this replica's own
 * consumer of every partition.
 *
 * <p>It starts from the projection group's committed offsets, read before the tables: the group
 * commits only what the tables hold, so every record before those offsets is in what was loaded,
 * and the records after them that the tables hold too are skipped by their node's position. So the
 * view is never behind the tables it was loaded from, and usually ahead of them: it counts a record
 * once Kafka hands it over, where the projection writes it with its next transaction.
 *
 * <p>Ready once it has read every partition to the end it had when loading began; until then, and
 * while it loads again after a failure (Kafka or PostgreSQL away beyond {@code
 * fleetwave.fleet-view.timeout}), readers fall back to PostgreSQL. {@link FleetViewComparison}
 * checks it against the tables.
 */
@ApplicationScoped
public class FleetView {
  private static final Logger LOG = Logger.getLogger(FleetView.class);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final int MAX_POLL_RECORDS = 5_000;

  /** How often a call waiting for the tables to reach a node asks where they stand. */
  private static final Duration TABLES_POLL = Duration.ofMillis(20);

  /** How often the view checks that the topic has no partition it does not read. */
  private static final Duration PARTITIONS_CHECK = Duration.ofMinutes(1);

  private final NodeEventAuthenticity authenticity;
  private final FleetTallyRows tables;
  private final Map<String, Object> kafkaConfig;
  private final String projectionGroup;
  private final FleetViewConfig config;
  private final NodeControls controls;
  private final FactsCaughtUp factsCaughtUp;
  private final NodeQueries nodes;
  private volatile FleetTally tally;
  private volatile boolean ready;

  /**
   * Whether the database orders strings as the view does (a C collation): listings and the version
   * distribution from memory then.
   */
  private volatile boolean namesSortedAsJava;

  private volatile boolean running;
  private volatile KafkaConsumer<String, byte[]> consumer;
  // Said once per failure, not at every attempt while the broker or PostgreSQL stays away.
  private boolean failureLogged;
  private Thread thread;

  public FleetView(
      NodeEventAuthenticity authenticity,
      FleetTallyRows tables,
      @Identifier("default-kafka-broker") Map<String, Object> kafkaConfig,
      @ConfigProperty(name = "mp.messaging.incoming.node-events.group.id") String projectionGroup,
      FleetViewConfig config,
      NodeControls controls,
      FactsCaughtUp factsCaughtUp,
      NodeQueries nodes) {
    this.factsCaughtUp = factsCaughtUp;
    this.authenticity = authenticity;
    this.nodes = nodes;
    this.controls = controls;
    this.tables = tables;
    this.kafkaConfig = kafkaConfig;
    this.projectionGroup = projectionGroup;
    this.config = config;
  }

  void onStart(@Observes StartupEvent event, MeterRegistry registry) {
    Gauge.builder("fleetwave.fleet.view.ready", this, view -> view.ready ? 1 : 0)
        .description(
            "1 while this replica serves the fleet summary, the nodes and the version distribution"
                + " from its in-memory view"
                + " of the log, 0 while it loads it (they are read from PostgreSQL meanwhile)")
        .register(registry);
    running = true;
    thread = Thread.ofPlatform().name("fleet-view").daemon().start(this::run);
  }

  void onStop(@Observes ShutdownEvent event) throws InterruptedException {
    running = false;
    KafkaConsumer<String, byte[]> following = consumer;
    if (following != null) {
      following.wakeup();
    }
    if (thread != null) {
      thread.join(Duration.ofSeconds(10));
    }
  }

  /** The fleet summary from memory; empty while the view is not ready. */
  public Optional<FleetSummary> summary() {
    FleetTally held = tally;
    return ready && held != null ? Optional.of(held.summary()) : Optional.empty();
  }

  /**
   * One node from memory: empty while the view cannot answer (loading, or this replica's follower
   * has not read the control facts yet: read PostgreSQL); else the node, or empty when the fleet
   * has no such node.
   */
  public Optional<Optional<NodeView>> node(String name) {
    FleetTally held = withControls().orElse(null);
    if (held == null || held.isRefusedByTables(name)) {
      return Optional.empty();
    }
    HeldNode node = held.get(name);
    if (node == null) {
      return Optional.of(Optional.empty());
    }
    return Optional.of(Optional.of(read(node, NodeListView.FULL)));
  }

  /**
   * One page of the node listing from memory: the nodes {@code filter} passes in {@code zone}
   * (blank: any), in name order, in the form asked for; empty while the view cannot answer
   * (loading, the control facts not read yet, a database that orders names otherwise, a node that
   * passes with a record PostgreSQL refused: read PostgreSQL).
   */
  public Optional<Page<NodeView>> list(
      NodeFilter filter, String zone, PageRequest paging, NodeListView form) {
    FleetTally held = inTheTablesOrder().orElse(null);
    if (held == null) {
      return Optional.empty();
    }
    return held.list(node -> filter.matches(node, zone), paging.offset(), paging.size())
        .map(
            listed ->
                new Page<>(
                    listed.nodes().stream().map(node -> read(node, form)).toList(),
                    paging.page(),
                    paging.size(),
                    listed.total()));
  }

  /**
   * The version distribution from memory, in {@code zone} and {@code pool} (null: any), as {@code
   * reports.version_distribution} counts the tables; empty while the view cannot answer (loading,
   * the control facts not read yet, a database that orders strings otherwise, a node with a record
   * PostgreSQL refused: read PostgreSQL).
   */
  public Optional<List<VersionDistribution>> versions(String zone, String pool) {
    FleetTally held = inTheTablesOrder().orElse(null);
    if (held == null) {
      return Optional.empty();
    }
    return held.versions(
        name -> {
          NodeControls.Control control = controls.of(name);
          return new FleetVersions.Desired(
              control.desiredGeneration(), control.desiredDriverVersion());
        },
        zone,
        pool);
  }

  /**
   * The tally when a read that shows what the control facts say may be served from it: loaded, and
   * this replica's follower has read the control facts once.
   */
  private Optional<FleetTally> withControls() {
    FleetTally held = tally;
    return ready && held != null && factsCaughtUp.isReached()
        ? Optional.of(held)
        : Optional.empty();
  }

  /** As {@link #withControls}, where the database also orders strings as Java does. */
  private Optional<FleetTally> inTheTablesOrder() {
    return withControls().filter(held -> namesSortedAsJava);
  }

  /** A held node as a read shows it, with what the control facts say of it, in {@code form}. */
  private NodeView read(HeldNode node, NodeListView form) {
    NodeControls.Control control = controls.of(node.node().name());
    NodeControls.Revocation revocation = control.revocation();
    NodeView read =
        node.read(
            control.desiredGeneration(),
            revocation == null ? null : revocation.revokedAt(),
            revocation == null ? null : revocation.revokedBy());
    return form == NodeListView.BRIEF ? read.brief() : read;
  }

  /**
   * Completes once PostgreSQL's tables hold {@code name} at least where this replica's view shows
   * it, or after {@code fleetwave.fleet-view.tables-wait}: what a call about one node reads or
   * writes in PostgreSQL (its spec, a command, its history) then starts from what the client saw in
   * {@code GET /api/v1/nodes/{name}}, which the view serves ahead of the tables. At once while the
   * view is not ready, or does not show the node.
   */
  public Uni<Void> tablesReach(String name) {
    FleetTally held = tally;
    HeldNode shown = ready && held != null && !held.isRefusedByTables(name) ? held.get(name) : null;
    if (shown == null) {
      return Uni.createFrom().voidItem();
    }
    return tablesReach(name, shown.position(), System.nanoTime() + config.tablesWait().toNanos());
  }

  private Uni<Void> tablesReach(String name, NodePosition shown, long deadline) {
    return nodes
        .position(name)
        .chain(
            stored -> {
              boolean reached = stored.isPresent() && !stored.get().precedes(shown);
              if (reached || System.nanoTime() > deadline) {
                return Uni.createFrom().voidItem();
              }
              return Uni.createFrom()
                  .voidItem()
                  .onItem()
                  .delayIt()
                  .by(TABLES_POLL)
                  .chain(() -> tablesReach(name, shown, deadline));
            });
  }

  /** The tally being served; empty while the view is not ready (for the comparison). */
  Optional<FleetTally> readyTally() {
    FleetTally held = tally;
    return ready && held != null ? Optional.of(held) : Optional.empty();
  }

  private void run() {
    try {
      while (running) {
        try {
          loadAndFollow();
        } catch (WakeupException e) {
          return;
        } catch (RuntimeException e) {
          ready = false;
          if (!running) {
            return;
          }
          if (!failureLogged) {
            failureLogged = true;
            LOG.warnf(
                "the in-memory fleet view is not available (%s); the fleet summary, nodes and"
                    + " versions are read from PostgreSQL until it is loaded again (tried every %s)",
                e.toString(), config.retryAfter());
          }
          sleepBeforeRetry();
        }
      }
    } catch (WakeupException e) {
      // stopping while waiting to load again
    }
  }

  private void loadAndFollow() {
    long started = System.nanoTime();
    KafkaConsumer<String, byte[]> following = newConsumer();
    try {
      consumer = following;
      if (!running) {
        return;
      }
      List<TopicPartition> partitions = partitions(following, Topics.NODE_EVENTS);
      if (partitions.isEmpty()) {
        throw new IllegalStateException(Topics.NODE_EVENTS + " has no partitions yet");
      }
      List<TopicPartition> deadLetters = partitions(following, Topics.NODE_EVENTS_DLQ);
      List<TopicPartition> assigned = new ArrayList<>(partitions);
      assigned.addAll(deadLetters);
      // Assigned before any offset is asked (the client warns of answers for partitions it does
      // not hold); nothing is polled before each has its position below.
      following.assign(assigned);
      // The dead letters' ends first, then the projection's offsets, then the tables: a record
      // after those offsets that PostgreSQL refuses is dead-lettered after these ends.
      Map<TopicPartition, Long> deadLettersFrom =
          following.endOffsets(deadLetters, config.timeout());
      Map<TopicPartition, OffsetAndMetadata> committed = committedOffsets();
      Map<String, HeldNode> rows = tables.read().await().atMost(config.timeout());
      namesSortedAsJava = tables.sortsNamesAsJava().await().atMost(config.timeout());
      FleetTally loading = new FleetTally();
      rows.forEach(loading::put);
      for (TopicPartition partition : partitions) {
        OffsetAndMetadata offset = committed.get(partition);
        if (offset == null) {
          following.seekToBeginning(List.of(partition));
        } else {
          following.seek(partition, offset.offset());
        }
      }
      deadLettersFrom.forEach(following::seek);
      Map<TopicPartition, Long> ends = following.endOffsets(partitions, config.timeout());
      tally = loading;
      long read = 0;
      long partitionsCheckedAt = System.nanoTime();
      while (running) {
        if (System.nanoTime() - partitionsCheckedAt > PARTITIONS_CHECK.toNanos()) {
          partitionsCheckedAt = System.nanoTime();
          checkPartitions(following, Topics.NODE_EVENTS, partitions.size());
          checkPartitions(following, Topics.NODE_EVENTS_DLQ, deadLetters.size());
        }
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : following.poll(POLL)) {
          if (record.topic().equals(Topics.NODE_EVENTS)) {
            records.add(record);
          } else {
            refused(loading, record);
          }
        }
        read += records.size();
        apply(loading, records);
        if (!ready && caughtUp(following, ends)) {
          ready = true;
          failureLogged = false;
          LOG.infof(
              "fleet view ready: %d nodes loaded from PostgreSQL, %d records of %s read after"
                  + " them, in %d ms; the fleet summary, nodes and versions are served from memory",
              rows.size(),
              read,
              Topics.NODE_EVENTS,
              TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        }
      }
    } finally {
      consumer = null;
      following.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }

  /** Partitions added to the topic: the view reads them too, from the tables again. */
  private void checkPartitions(KafkaConsumer<String, byte[]> following, String topic, int read) {
    int now = partitions(following, topic).size();
    if (now != read) {
      throw new IllegalStateException(
          "%s has %d partitions, the view read %d".formatted(topic, now, read));
    }
  }

  private List<TopicPartition> partitions(KafkaConsumer<String, byte[]> following, String topic) {
    List<TopicPartition> partitions = new ArrayList<>();
    for (PartitionInfo info : following.partitionsFor(topic, config.timeout())) {
      partitions.add(new TopicPartition(info.topic(), info.partition()));
    }
    return partitions;
  }

  /**
   * A dead letter: when PostgreSQL refused the record's data, the view applied what the tables do
   * not hold, and reads of its node go to the tables until the comparison takes it back.
   */
  private static void refused(FleetTally into, ConsumerRecord<String, byte[]> letter) {
    Header reason = letter.headers().lastHeader(Topics.DLQ_REASON_HEADER);
    if (letter.key() != null
        && reason != null
        && reason.value() != null
        && new String(reason.value(), StandardCharsets.UTF_8)
            .startsWith(DeadLetters.REFUSED_BY_POSTGRESQL)) {
      into.refusedByTables(letter.key());
    }
  }

  /** The records the projection accepts, applied as it applies them. */
  private void apply(FleetTally into, List<ConsumerRecord<String, byte[]>> records) {
    if (records.isEmpty()) {
      return;
    }
    List<Headers> headers = records.stream().map(ConsumerRecord::headers).toList();
    NodeEventAuthenticity.Check check = checkFor(headers);
    List<Envelope<NodeEvent>> events = new ArrayList<>();
    for (DecodedRecord decoded :
        NodeEventAuthenticity.decodeAll(
            records, r -> NodeEventAuthenticity.decode(check, r.key(), r.value(), r.headers()))) {
      if (decoded instanceof DecodedRecord.Accepted accepted) {
        events.add(accepted.envelope());
      }
    }
    into.apply(events);
  }

  /**
   * The projection's check for these records. While the node keys cannot be read (PostgreSQL away)
   * the records wait and the view keeps serving what it holds: the tables are no fresher meanwhile.
   */
  private NodeEventAuthenticity.Check checkFor(List<Headers> headers) {
    boolean logged = false;
    while (true) {
      try {
        return authenticity.forBatchBlocking(headers);
      } catch (RuntimeException e) {
        if (!running) {
          throw e;
        }
        if (!logged) {
          logged = true;
          LOG.warnf(
              "fleet view: the node keys of %d records cannot be read (%s); they wait, and the view"
                  + " serves what it holds (tried every %s)",
              headers.size(), e.toString(), config.retryAfter());
        }
        sleepBeforeRetry();
      }
    }
  }

  private void sleepBeforeRetry() {
    try {
      Thread.sleep(config.retryAfter());
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new WakeupException();
    }
  }

  private boolean caughtUp(
      KafkaConsumer<String, byte[]> following, Map<TopicPartition, Long> ends) {
    for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
      if (following.position(end.getKey(), config.timeout()) < end.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** What the projection's group has committed: everything before it is in the tables. */
  private Map<TopicPartition, OffsetAndMetadata> committedOffsets() {
    Admin admin = Admin.create(KafkaClientConfig.shared(kafkaConfig));
    try {
      return admin
          .listConsumerGroupOffsets(projectionGroup)
          .partitionsToOffsetAndMetadata()
          .get(config.timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the projection's offsets", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot read the offsets of group " + projectionGroup + ": " + e.getCause(), e);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "the offsets of group "
              + projectionGroup
              + " were not read from Kafka within "
              + config.timeout(),
          e);
    } finally {
      // Bounded: a broker that is away would hold a plain close for the client's API timeout.
      admin.close(Duration.ofSeconds(5));
    }
  }

  private KafkaConsumer<String, byte[]> newConsumer() {
    Map<String, Object> consumerConfig =
        KafkaClientConfig.assigningConsumer(kafkaConfig, MAX_POLL_RECORDS);
    // A committed offset that retention has passed: from the oldest record kept (the tables
    // already hold everything before it).
    consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return new KafkaConsumer<>(
        consumerConfig, new StringDeserializer(), new ByteArrayDeserializer());
  }
}
