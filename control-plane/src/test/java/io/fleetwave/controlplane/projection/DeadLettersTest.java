package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.core.projection.Rejection;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.helpers.test.UniAssertSubscriber;
import io.smallrye.mutiny.subscription.Cancellable;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.smallrye.reactive.messaging.MutinyEmitter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.apache.kafka.common.errors.TimeoutException;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/**
 * A batch's dead letters go out together and a failed attempt resumes with the letters the broker
 * did not acknowledge (issue 32, finding 4), against a broker stand-in that holds or refuses them.
 */
class DeadLettersTest {
  private static final Duration PER_LETTER = Duration.ofSeconds(60);

  @Test
  void lettersAreSentTogetherNotOneAcknowledgementAtATime() {
    Broker broker = new Broker();
    broker.holdAcknowledgements = true;
    DeadLetters.Delivery delivery = new DeadLetters(broker).delivery(rejections(1_000));

    UniAssertSubscriber<Void> done =
        delivery.sendUnacknowledged().subscribe().withSubscriber(UniAssertSubscriber.create());

    assertThat(broker.held).as("letters awaiting acknowledgement at once").hasSize(512);
    while (!broker.held.isEmpty()) {
      broker.acknowledgeHeld();
    }
    done.assertCompleted();
    assertThat(broker.sent).hasSize(1_000).doesNotHaveDuplicates();
  }

  @Test
  void anAttemptThatFailedResumesWithTheUnacknowledgedLettersOnly() {
    Broker broker = new Broker();
    broker.givenUp.addAll(Set.of("letter 700", "letter 701"));
    DeadLetters.Delivery delivery = new DeadLetters(broker).delivery(rejections(1_000));

    assertThatThrownBy(() -> delivery.sendUnacknowledged().await().indefinitely())
        .isInstanceOf(TimeoutException.class);
    assertThat(broker.sent).as("the first attempt sent every letter").hasSize(1_000);
    assertThat(delivery.attemptBound(PER_LETTER)).isEqualTo(PER_LETTER);

    broker.sent.clear();
    delivery.sendUnacknowledged().await().indefinitely();
    assertThat(broker.sent)
        .as("the second attempt")
        .containsExactlyInAnyOrder("letter 700", "letter 701");
  }

  @Test
  void theBoundOfAnAttemptGrowsWithTheLettersStillUnacknowledged() {
    DeadLetters letters = new DeadLetters(new Broker());
    assertThat(letters.delivery(rejections(1)).attemptBound(PER_LETTER)).isEqualTo(PER_LETTER);
    assertThat(letters.delivery(rejections(512)).attemptBound(PER_LETTER)).isEqualTo(PER_LETTER);
    assertThat(letters.delivery(rejections(513)).attemptBound(PER_LETTER))
        .isEqualTo(PER_LETTER.multipliedBy(2));
    assertThat(letters.delivery(rejections(50_000)).attemptBound(PER_LETTER))
        .isEqualTo(PER_LETTER.multipliedBy(98));
  }

  private static List<Rejection> rejections(int count) {
    return IntStream.range(0, count)
        .mapToObj(
            i ->
                new Rejection(
                    "fleet.node-events",
                    i % 12,
                    i,
                    "junk",
                    ("letter " + i).getBytes(StandardCharsets.UTF_8),
                    "not a CloudEvents JSON envelope"))
        .toList();
  }

  /**
   * Takes each letter as the Kafka sink does: acknowledges it (the message's ack, then the send's
   * Uni), holds the acknowledgement until told, or gives it up once (a delivery timeout).
   */
  private static final class Broker implements MutinyEmitter<byte[]> {
    final List<String> sent = new ArrayList<>();
    final Set<String> givenUp = ConcurrentHashMap.newKeySet();
    final List<Runnable> held = new ArrayList<>();
    boolean holdAcknowledgements;

    @Override
    public <M extends Message<? extends byte[]>> Uni<Void> sendMessage(M message) {
      return Uni.createFrom()
          .emitter(
              (UniEmitter<? super Void> emitter) -> {
                String letter = new String(message.getPayload(), StandardCharsets.UTF_8);
                sent.add(letter);
                Runnable outcome =
                    () -> {
                      if (givenUp.remove(letter)) {
                        TimeoutException failure = new TimeoutException("expired " + letter);
                        var _ = message.nack(failure);
                        emitter.fail(failure);
                      } else {
                        var _ = message.ack();
                        emitter.complete(null);
                      }
                    };
                if (holdAcknowledgements) {
                  held.add(outcome);
                } else {
                  outcome.run();
                }
              });
    }

    void acknowledgeHeld() {
      List<Runnable> now = new ArrayList<>(held);
      held.clear();
      now.forEach(Runnable::run);
    }

    @Override
    public Uni<Void> send(byte[] payload) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void sendAndAwait(byte[] payload) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Cancellable sendAndForget(byte[] payload) {
      throw new UnsupportedOperationException();
    }

    @Override
    @Deprecated // as in MutinyEmitter; implemented only to refuse it
    public <M extends Message<? extends byte[]>> void send(M message) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <M extends Message<? extends byte[]>> void sendMessageAndAwait(M message) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <M extends Message<? extends byte[]>> Cancellable sendMessageAndForget(M message) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void complete() {}

    @Override
    public void error(Exception e) {}

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public boolean hasRequests() {
      return true;
    }
  }
}
