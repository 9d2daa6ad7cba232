package io.fleetwave.agent.desired;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.embedded.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A node that joins the {@link CommandFollower} again (its agent run restarted, as a driver install
 * reboots a simulated host) after the follower already read its spec: it gets that spec even when
 * the catch-up cannot finish in time, once it can. Before, a catch-up that ran past its bound, or
 * whose end offsets could not be read (the broker away), left the node live without its spec: the
 * record had been read before the node joined, so nothing would ever bring it again, and the node
 * held its gate until the rollout's node timeout (seen in the system tier: two driver nodes that
 * rebooted during the broker's outage never applied their spec).
 */
class CommandFollowerCatchUpIT {
  private static final String DESIRED = "catch-up.node-desired";
  private static final String COMMANDS = "catch-up.node-commands";
  private static final String NODE = "rejoining-0";
  private static final Duration WAIT = Duration.ofSeconds(60);
  // The end offsets are asked for within this bound: the broker's outage outlasts it thrice.
  private static final Duration KAFKA_WAIT = Duration.ofSeconds(2);
  private static final Duration OUTAGE = KAFKA_WAIT.multipliedBy(4);

  private static EmbeddedKafka kafka;
  private static KafkaProducer<String, byte[]> producer;

  @BeforeAll
  static void broker() {
    kafka = EmbeddedKafka.start();
    producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG,
                5),
            new StringSerializer(),
            new ByteArraySerializer());
  }

  @AfterAll
  static void stop() {
    producer.close();
    kafka.close();
  }

  @Test
  void aNodeRejoiningWhileTheBrokerIsAwayGetsTheSpecItHadOnceTheBrokerIsBack() throws Exception {
    String desired = topicWithTheNodesSpec("-outage");
    try (CommandFollower follower =
        CommandFollower.start(
            settings(desired, KAFKA_WAIT, Duration.ofSeconds(30)), NODE::equals)) {
      firstRunCaughtUp(follower);

      kafka.stopBroker();
      Instant down = Instant.now();
      RecordingSink second = new RecordingSink();
      try {
        follower.follow(second);
        await("the run started during the outage told its catch-up failed")
            .atMost(WAIT)
            .until(() -> !second.said.isEmpty());
        // The outage outlasts several bounds: the ends are asked for again each time, and the run
        // is told once.
        await("the outage to last " + OUTAGE)
            .atMost(WAIT)
            .until(() -> Duration.between(down, Instant.now()).compareTo(OUTAGE) >= 0);
      } finally {
        kafka.restartBroker();
      }
      toldItFailedThenGivenItsSpec(
          second,
          "failed: cannot read the end offsets of " + desired + " within PT2S",
          "its newest spec is handed over once they can be read");
    }
  }

  @Test
  void aCatchUpPastItsBoundStillHandsTheNodeItsSpecOnceTheFollowerIsAtTheEnd() throws Exception {
    String desired = topicWithTheNodesSpec("-slow");
    // The follower is held at the first of the other nodes' records (the ranking of a local node's
    // record runs on its thread) while the next run joins, so it joins far behind the end.
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CommandFollower.Ranking holding =
        (node, value) -> {
          if (node.equals("other-0") && held.getCount() > 0) {
            held.countDown();
            try {
              release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return -1;
        };
    try (CommandFollower follower =
        CommandFollower.start(
            // The catch-up's bound is past as soon as it is checked: the follower is behind then.
            settings(desired, Duration.ofSeconds(30), Duration.ofNanos(1))
                // One record a poll: a joining run is admitted (its ends read) before each poll.
                .withOverrides(Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1)),
            node -> node.equals(NODE) || node.startsWith("other-"),
            holding)) {
      firstRunCaughtUp(follower);

      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        sent.add(
            producer.send(new ProducerRecord<>(desired, "other-" + i, bytes("other spec " + i))));
      }
      for (Future<RecordMetadata> ack : sent) {
        ack.get(30, TimeUnit.SECONDS);
      }
      assertThat(held.await(WAIT.toSeconds(), TimeUnit.SECONDS))
          .as("the follower held at the other nodes' first record")
          .isTrue();
      RecordingSink second = new RecordingSink();
      follower.follow(second);
      release.countDown();
      toldItFailedThenGivenItsSpec(
          second,
          "failed: " + desired + " was not read to its end within PT0.000000001S",
          "its newest spec is handed over once it is");
    }
  }

  /** A desired topic of its own, holding {@link #NODE}'s spec {@code spec-1}. */
  private static String topicWithTheNodesSpec(String suffix)
      throws InterruptedException, ExecutionException, TimeoutException {
    String desired = DESIRED + suffix;
    kafka.createTopics(1, EmbeddedKafka.compacted(), desired);
    kafka.createTopics(1, COMMANDS);
    send(desired, NODE, "spec-1");
    return desired;
  }

  private static CommandFollower.Settings settings(
      String desired, Duration kafkaWait, Duration catchUp) {
    return new CommandFollower.Settings(
        kafka.bootstrapServers(), desired, COMMANDS, kafkaWait, catchUp, Map.of());
  }

  /**
   * The node's first run joins, is given its spec, and stops (as a driver install reboots it).
   * Under a catch-up bound already past (1 ns), a first run that joins before the follower has read
   * the spec's record is told so first, and given the record as it is read (the behaviour the slow
   * case tests on its second run).
   */
  private static void firstRunCaughtUp(CommandFollower follower) {
    RecordingSink first = new RecordingSink();
    follower.follow(first);
    await("the first run caught up")
        .atMost(WAIT)
        .until(() -> first.said.stream().anyMatch(said -> said.startsWith("caught up")));
    assertThat(first.said).last().isEqualTo("caught up: spec-1");
    assertThat(first.said.subList(0, first.said.size() - 1))
        .as("what the first run was told before its spec")
        .allMatch(
            said ->
                said.equals("desired: spec-1")
                    || (said.startsWith("failed: ") && said.contains("was not read to its end")));
    first.stop();
    follower.unfollow(first);
  }

  /**
   * The run that joined after the follower read its spec was told once that its catch-up failed
   * (the message starting with {@code failedStart} and ending with {@code failedEnd}), then given
   * that spec all the same.
   */
  private static void toldItFailedThenGivenItsSpec(
      RecordingSink run, String failedStart, String failedEnd) {
    await("the run given the spec the follower read before it joined")
        .atMost(WAIT)
        .until(() -> run.said.stream().anyMatch(said -> said.startsWith("caught up")));
    assertThat(run.said).hasSize(2);
    assertThat(run.said.getFirst()).startsWith(failedStart).endsWith(failedEnd);
    assertThat(run.said.get(1)).isEqualTo("caught up: spec-1");
  }

  private static void send(String topic, String node, String value)
      throws InterruptedException, ExecutionException, TimeoutException {
    producer.send(new ProducerRecord<>(topic, node, bytes(value))).get(30, TimeUnit.SECONDS);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** What the follower told one agent run of {@link #NODE}, in order. */
  private static final class RecordingSink implements CommandSink {
    final List<String> said = new CopyOnWriteArrayList<>();
    private volatile boolean active = true;

    void stop() {
      active = false;
    }

    @Override
    public String node() {
      return NODE;
    }

    @Override
    public boolean active() {
      return active;
    }

    @Override
    public void caughtUp(byte[] latestDesired, byte[] newestTrusted) {
      said.add("caught up: " + text(latestDesired));
    }

    @Override
    public void tombstone() {
      said.add("tombstone");
    }

    @Override
    public void catchUpFailed(String reason) {
      said.add("failed: " + reason);
    }

    @Override
    public void desired(byte[] value) {
      said.add("desired: " + text(value));
    }

    @Override
    public void command(byte[] value) {
      said.add("command: " + text(value));
    }

    private static String text(byte[] value) {
      return value == null ? "none" : new String(value, StandardCharsets.UTF_8);
    }
  }
}
