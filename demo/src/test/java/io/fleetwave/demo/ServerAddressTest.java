package io.fleetwave.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ServerAddressTest {
  private static final URI RECORDED = URI.create("http://localhost:40123/");

  private static URI notRecordedYet() {
    throw new IllegalArgumentException("Key quarkus.http.local-base-uri not found");
  }

  private static CompletableFuture<URI> known(ServerAddress address) {
    return address.known().toCompletableFuture();
  }

  @Test
  void aConfiguredPortIsTheAddress() {
    ServerAddress address = new ServerAddress(Duration.ofSeconds(30));

    address.started(8080, ServerAddressTest::notRecordedYet);

    assertThat(known(address)).isCompletedWithValue(URI.create("http://localhost:8080/"));
  }

  @Test
  void onARandomPortAServerThatStartedBeforeTheUriWasRecordedIsNotTheAnswer() {
    ServerAddress address = new ServerAddress(Duration.ofSeconds(30));

    address.started(0, ServerAddressTest::notRecordedYet);
    assertThat(known(address)).isNotDone();
    address.started(0, () -> RECORDED);

    assertThat(known(address)).isCompletedWithValue(RECORDED);
  }

  @Test
  void aUriRecordedAfterEveryStartWasSeenIsFoundByAskingAgain() throws Exception {
    ServerAddress address = new ServerAddress(Duration.ofSeconds(30));
    AtomicInteger asked = new AtomicInteger();
    Supplier<URI> recordedOnTheFourthAsk =
        () -> asked.incrementAndGet() < 4 ? notRecordedYet() : RECORDED;

    address.started(0, recordedOnTheFourthAsk);
    address.started(0, recordedOnTheFourthAsk);

    assertThat(known(address).get(10, TimeUnit.SECONDS)).isEqualTo(RECORDED);
    assertThat(asked).hasValue(4);
  }

  @Test
  void noUriRecordedWithinTheBoundFailsTheAddressNamingWhy() {
    ServerAddress address = new ServerAddress(Duration.ofMillis(300));

    address.started(0, ServerAddressTest::notRecordedYet);

    assertThatThrownBy(() -> known(address).get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .hasMessageContaining("recorded no address for the HTTP server within PT0.3S")
        .hasMessageContaining("Key quarkus.http.local-base-uri not found");
  }
}
