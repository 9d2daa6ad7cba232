package io.fleetwave.agent.desired;

import io.fleetwave.agent.kafka.ClientOverrides;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads the desired-spec topic (compacted) and the commands topic for every node of this JVM with
 * ONE consumer on ONE thread, and hands each record to the node it is keyed by. A real agent has
 * one node here; the simulated fleet has thousands, still one consumer.
 *
 * <p>No consumer group: every partition is assigned directly, the desired topic from its beginning
 * (it is the state), the commands topic from its end at start (a one-shot command is for the agent
 * that runs when it is sent, never replayed to a later one). The latest desired record of each
 * local node is kept in memory, so a node that (re)joins — an agent restart or a reboot — gets its
 * spec as soon as this reader has reached the end offsets the topic had when it joined. Past the
 * catch-up timeout, or while the broker does not answer those offsets, the node is told so once (it
 * holds its gate and says why) and gets records as they come; it still gets its spec once the
 * reader is there, since the record may have been read before the node joined.
 *
 * <p>Replays. An old validly signed spec re-published on the desired topic is its latest record,
 * and compaction may even drop the newer one later; so besides the latest record, the newest one
 * the {@link Ranking} trusts (signed for this node by a trusted key, highest generation, the later
 * of equals) is kept and handed over too. A node without local state (a read-only host) thus learns
 * its newest spec from the topic before acting, and refuses the older latest record. Tombstones
 * (null values) delete nothing: a Kafka tombstone carries no signature, so the records kept stay,
 * and the sink is told ({@link CommandSink#tombstone()}).
 */
public final class CommandFollower implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(CommandFollower.class.getName());
  private static final Duration POLL = Duration.ofMillis(100);
  // How soon end offsets the broker did not give are asked for again.
  private static final Duration ENDS_AGAIN_AFTER = Duration.ofSeconds(1);

  /**
   * @param bootstrapServers Kafka bootstrap servers
   * @param desiredTopic compacted, key = node name
   * @param commandsTopic one-shot commands, key = node name
   * @param kafkaWait bound on metadata and offset requests (start fails after it)
   * @param catchUpTimeout bound on reaching the end of the desired topic for a joining node
   * @param overrides further consumer properties (security, tuning, client.id); the keys the
   *     follower owns are refused ({@link ClientOverrides})
   */
  public record Settings(
      String bootstrapServers,
      String desiredTopic,
      String commandsTopic,
      Duration kafkaWait,
      Duration catchUpTimeout,
      Map<String, Object> overrides) {
    public Settings {
      Objects.requireNonNull(bootstrapServers, "bootstrapServers");
      Objects.requireNonNull(desiredTopic, "desiredTopic");
      Objects.requireNonNull(commandsTopic, "commandsTopic");
      Objects.requireNonNull(kafkaWait, "kafkaWait");
      Objects.requireNonNull(catchUpTimeout, "catchUpTimeout");
      overrides = ClientOverrides.check(overrides);
    }

    public static Settings of(String bootstrapServers, SpecFollowing following, Duration wait) {
      return new Settings(
          bootstrapServers,
          following.desiredTopic(),
          following.commandsTopic(),
          wait,
          following.catchUpTimeout(),
          Map.of());
    }

    /** These settings with an operator's client properties (e.g. from --kafka-config). */
    public Settings withOverrides(Map<String, ?> overrides) {
      return new Settings(
          bootstrapServers,
          desiredTopic,
          commandsTopic,
          kafkaWait,
          catchUpTimeout,
          Map.copyOf(overrides));
    }
  }

  /**
   * A joining node's run, until the follower has read the desired topic to the ends it had when the
   * run joined ({@code ends}, null until the broker answered them). Past its deadline, or while the
   * ends cannot be read, the run is told once ({@code late}) and gets records as they come; it
   * still gets the newest spec read once the follower is at the ends: that record may have been
   * read before it joined, and then nothing would ever bring it again.
   */
  private static final class CatchUp {
    private final CommandSink sink;
    private final long deadlineNanos;
    private Map<TopicPartition, Long> ends;
    private boolean late;

    CatchUp(CommandSink sink, long deadlineNanos) {
      this.sink = sink;
      this.deadlineNanos = deadlineNanos;
    }
  }

  /** Which desired records to trust as the node's newest spec. */
  @FunctionalInterface
  public interface Ranking {
    /** Ranks nothing: only the latest record is handed over. */
    Ranking NONE = (node, value) -> -1;

    /**
     * The spec generation of a record signed for this node by a trusted key, or -1 for a record
     * that is not (unsigned, forged, another node's, malformed, not a spec).
     */
    long trustedGeneration(String node, byte[] value);
  }

  /** The newest trusted record of a node and its generation. */
  private static final class Newest {
    private final byte[] value;
    private final long generation;

    Newest(byte[] value, long generation) {
      this.value = value;
      this.generation = generation;
    }

    byte[] value() {
      return value;
    }

    long generation() {
      return generation;
    }
  }

  private final Settings settings;
  private final Predicate<String> localNodes;
  private final Ranking ranking;
  private final KafkaConsumer<String, byte[]> consumer;
  private final List<TopicPartition> desiredPartitions;
  private final Map<String, CommandSink> live = new ConcurrentHashMap<>();
  private final Queue<CommandSink> joining = new ConcurrentLinkedQueue<>();
  // Poll thread only.
  private final Map<String, byte[]> latestDesired = new HashMap<>();
  private final Map<String, Newest> newestTrusted = new HashMap<>();
  private final java.util.Set<String> tombstoned = new java.util.HashSet<>();
  private final List<CatchUp> catchingUp = new ArrayList<>();
  private long endsAgainAt = System.nanoTime();
  private final Thread thread;
  private volatile boolean running = true;

  private CommandFollower(
      Settings settings,
      Predicate<String> localNodes,
      Ranking ranking,
      KafkaConsumer<String, byte[]> consumer,
      List<TopicPartition> desiredPartitions) {
    this.settings = settings;
    this.localNodes = localNodes;
    this.ranking = Objects.requireNonNull(ranking, "ranking");
    this.consumer = consumer;
    this.desiredPartitions = desiredPartitions;
    this.thread =
        Thread.ofPlatform().daemon().name("fleetwave-command-follower").unstarted(this::loop);
  }

  /**
   * Assigns both topics and starts reading.
   *
   * @param localNodes the node names of this JVM (only their desired records are kept)
   * @throws IllegalStateException naming the servers and topic when a topic is not served within
   *     the wait
   */
  public static CommandFollower start(Settings settings, Predicate<String> localNodes) {
    return start(settings, localNodes, Ranking.NONE);
  }

  /**
   * As {@link #start(Settings, Predicate)}, also keeping each local node's newest trusted spec.
   *
   * @param ranking which desired records are trusted, and their generation
   */
  public static CommandFollower start(
      Settings settings, Predicate<String> localNodes, Ranking ranking) {
    KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            consumerConfig(settings), new StringDeserializer(), new ByteArrayDeserializer());
    try {
      List<TopicPartition> desired = partitions(consumer, settings, settings.desiredTopic());
      List<TopicPartition> commands = partitions(consumer, settings, settings.commandsTopic());
      List<TopicPartition> all = new ArrayList<>(desired);
      all.addAll(commands);
      consumer.assign(all);
      consumer.seekToBeginning(desired);
      consumer.seekToEnd(commands);
      // Resolve the end now: commands sent after start() returns must not be skipped.
      commands.forEach(tp -> consumer.position(tp, settings.kafkaWait()));
      CommandFollower follower =
          new CommandFollower(settings, localNodes, ranking, consumer, desired);
      follower.thread.start();
      return follower;
    } catch (RuntimeException e) {
      consumer.close(CloseOptions.timeout(Duration.ZERO));
      throw e;
    }
  }

  /**
   * The consumer properties: client.id that the overrides may change, then the overrides, then what
   * the follower owns (servers, no group, read_committed, its bound), which nothing overrides. The
   * deserializers are given to the consumer as objects.
   */
  public static Map<String, Object> consumerConfig(Settings settings) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, "fleetwave-command-follower");
    config.putAll(settings.overrides());
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) settings.kafkaWait().toMillis());
    return config;
  }

  /**
   * The topic's partitions. A consumer answers "unknown topic" at once, also for a topic created a
   * moment ago whose metadata has not reached the broker yet, so ask again until the wait is over.
   */
  private static List<TopicPartition> partitions(
      KafkaConsumer<?, ?> consumer, Settings settings, String topic) {
    long deadline = System.nanoTime() + settings.kafkaWait().toNanos();
    while (true) {
      List<PartitionInfo> infos;
      long left = deadline - System.nanoTime();
      try {
        infos = consumer.partitionsFor(topic, Duration.ofNanos(Math.max(left, 1)));
      } catch (RuntimeException e) {
        throw unavailable(settings, topic, e.toString());
      }
      if (infos != null && !infos.isEmpty()) {
        return infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      }
      if (deadline - System.nanoTime() <= 0) {
        throw unavailable(settings, topic, "the topic does not exist");
      }
      try {
        Thread.sleep(Math.min(100, Math.max(1, left / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw unavailable(settings, topic, "interrupted");
      }
    }
  }

  private static IllegalStateException unavailable(Settings settings, String topic, String why) {
    return new IllegalStateException(
        "Kafka at "
            + settings.bootstrapServers()
            + " did not serve topic "
            + topic
            + " within "
            + settings.kafkaWait()
            + " (is the broker up and the topic created?): "
            + why);
  }

  /**
   * Starts handing records to this sink: first its latest desired spec once the topic is read to
   * the end offsets it has now, then every later record. Replaces an earlier sink of the node.
   */
  public void follow(CommandSink sink) {
    joining.add(Objects.requireNonNull(sink, "sink"));
  }

  /** Stops handing records to this sink (its agent run stopped). */
  public void unfollow(CommandSink sink) {
    live.remove(sink.node(), sink);
  }

  private void loop() {
    try {
      while (running) {
        admitJoining();
        for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
          dispatch(record);
        }
        finishCatchUps();
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      LOG.log(Level.ERROR, "command follower stopped: " + e, e);
      catchingUp.forEach(c -> c.sink.catchUpFailed("command follower stopped: " + e));
    } finally {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }

  /**
   * Takes the runs that joined since the last poll, and reads the end offsets for every run still
   * without them (asked again at the next poll a second or more after the broker did not answer).
   */
  private void admitJoining() {
    long deadline = System.nanoTime() + settings.catchUpTimeout().toNanos();
    for (CommandSink sink = joining.poll(); sink != null; sink = joining.poll()) {
      catchingUp.add(new CatchUp(sink, deadline));
    }
    List<CatchUp> withoutEnds = catchingUp.stream().filter(c -> c.ends == null).toList();
    if (withoutEnds.isEmpty() || System.nanoTime() - endsAgainAt < 0) {
      return;
    }
    try {
      Map<TopicPartition, Long> ends = consumer.endOffsets(desiredPartitions, settings.kafkaWait());
      withoutEnds.forEach(c -> c.ends = ends);
    } catch (WakeupException e) {
      throw e;
    } catch (RuntimeException e) {
      // A refusal comes at once (no ACL to list offsets): not asked again on every poll.
      endsAgainAt = System.nanoTime() + ENDS_AGAIN_AFTER.toNanos();
      String reason =
          "cannot read the end offsets of "
              + settings.desiredTopic()
              + " within "
              + settings.kafkaWait()
              + ": "
              + e
              + "; its newest spec is handed over once they can be read";
      withoutEnds.forEach(c -> late(c, reason));
    }
  }

  /** Tells a run its catch-up is late, once, and gives it records as they come meanwhile. */
  private void late(CatchUp catchUp, String reason) {
    if (!catchUp.late) {
      catchUp.late = true;
      live.put(catchUp.sink.node(), catchUp.sink);
      catchUp.sink.catchUpFailed(reason);
    }
  }

  private void dispatch(ConsumerRecord<String, byte[]> record) {
    String node = record.key();
    if (node == null) {
      LOG.log(
          Level.WARNING,
          "record without a key (node name) at {0}-{1}@{2} ignored",
          record.topic(),
          record.partition(),
          record.offset());
      return;
    }
    boolean desired = record.topic().equals(settings.desiredTopic());
    if (desired && localNodes.test(node)) {
      if (record.value() == null) {
        // A tombstone carries no signature, so it deletes nothing here: what was kept stays.
        tombstoned.add(node);
        LOG.log(
            Level.WARNING,
            "unsigned tombstone for node {0} at {1}-{2}@{3} ignored: the desired spec is kept",
            node,
            record.topic(),
            record.partition(),
            record.offset());
      } else {
        tombstoned.remove(node);
        latestDesired.put(node, record.value());
        long generation = ranking.trustedGeneration(node, record.value());
        Newest newest = newestTrusted.get(node);
        if (generation >= 0 && (newest == null || generation >= newest.generation())) {
          newestTrusted.put(node, new Newest(record.value(), generation));
        }
      }
    }
    CommandSink sink = live.get(node);
    if (sink == null || !sink.active()) {
      if (!desired && localNodes.test(node)) {
        LOG.log(
            Level.WARNING,
            "command for node {0} dropped: its agent is not running (offset {1})",
            node,
            record.offset());
      }
      return;
    }
    if (record.value() == null) {
      if (desired) {
        sink.tombstone();
      }
      return;
    }
    if (desired) {
      sink.desired(record.value());
    } else {
      sink.command(record.value());
    }
  }

  private void finishCatchUps() {
    long now = System.nanoTime();
    for (Iterator<CatchUp> it = catchingUp.iterator(); it.hasNext(); ) {
      CatchUp catchUp = it.next();
      CommandSink sink = catchUp.sink;
      if (!sink.active()) {
        it.remove();
        continue;
      }
      if (catchUp.ends == null) {
        continue;
      }
      Map<TopicPartition, Long> behind = new HashMap<>();
      catchUp.ends.forEach(
          (tp, end) -> {
            long position = consumer.position(tp);
            if (position < end) {
              behind.put(tp, end - position);
            }
          });
      if (behind.isEmpty()) {
        it.remove();
        live.put(sink.node(), sink);
        Newest newest = newestTrusted.get(sink.node());
        sink.caughtUp(latestDesired.get(sink.node()), newest == null ? null : newest.value());
        if (tombstoned.contains(sink.node())) {
          sink.tombstone();
        }
      } else if (now - catchUp.deadlineNanos > 0) {
        late(
            catchUp,
            settings.desiredTopic()
                + " was not read to its end within "
                + settings.catchUpTimeout()
                + " (records behind per partition: "
                + behind
                + "); its newest spec is handed over once it is");
      }
    }
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      thread.join(Duration.ofSeconds(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
