package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.publish.EpochFile;
import io.fleetwave.agent.publish.EventPublisher;
import io.fleetwave.agent.publish.MemoryOutbox;
import io.fleetwave.agent.publish.SpoolFile;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.HostOs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a real agent keeps undelivered events and learns its previous epoch, per kind of host. */
class HostPublishingTest {
  @TempDir Path hostRoot;
  private EventPublisher publisher;
  private final AtomicInteger topicReads = new AtomicInteger();

  @BeforeEach
  void publisher() {
    // Nothing is sent here; the publisher only has to exist (its producer connects lazily).
    publisher =
        new EventPublisher(
            new EventPublisher.Settings(
                "127.0.0.1:9", "t", Duration.ofSeconds(1), Duration.ofMillis(100), Map.of()));
  }

  @AfterEach
  void close() {
    publisher.close(Duration.ZERO);
  }

  private HostFacts host(boolean readOnlyRoot, Optional<String> stateDirectory) {
    return new HostFacts(
        hostRoot,
        "n1",
        new HostOs(
            readOnlyRoot ? HostKind.TALOS : HostKind.UBUNTU,
            "os",
            "1",
            "6.1",
            readOnlyRoot,
            !readOnlyRoot,
            "/",
            "/",
            DriverProvider.HOST_PACKAGE),
        stateDirectory,
        Optional.empty(),
        Optional.empty(),
        Map.of());
  }

  /** Publishing on a writable host whose state directory is /var/lib/fleetwave, 1 MiB bounds. */
  private NodeAgent.Publishing onWritableHost(Supplier<OptionalLong> topic) {
    return HostPublishing.of(
        host(false, Optional.of("/var/lib/fleetwave")), publisher, 1 << 20, 1 << 20, topic);
  }

  private Supplier<OptionalLong> topicSays(long epoch) {
    return () -> {
      topicReads.incrementAndGet();
      return OptionalLong.of(epoch);
    };
  }

  @Test
  void aWritableHostSpoolsToItsStateDirectoryAndTakesTheEpochFromItsCounter() throws Exception {
    Path state = hostRoot.resolve("var/lib/fleetwave");
    Files.createDirectories(state);
    new EpochFile(state).remember(41);

    NodeAgent.Publishing publishing = onWritableHost(topicSays(7));

    assertThat(publishing.outbox()).isInstanceOf(SpoolFile.class);
    assertThat(((SpoolFile) publishing.outbox()).file()).isEqualTo(state.resolve(SpoolFile.NAME));
    assertThat(publishing.previousEpoch()).isEqualTo(41);
    assertThat(topicReads).hasValue(0);
    publishing.epochChosen().accept(42);
    assertThat(new EpochFile(state).last()).hasValue(42);
    publishing.outbox().close();
  }

  @Test
  void aWritableHostWithoutACounterYetAsksTheTopic() throws Exception {
    Files.createDirectories(hostRoot.resolve("var/lib/fleetwave"));

    NodeAgent.Publishing publishing = onWritableHost(topicSays(7));

    assertThat(publishing.previousEpoch()).isEqualTo(7);
    assertThat(topicReads).hasValue(1);
    publishing.outbox().close();
  }

  @Test
  void aReadOnlyHostQueuesInMemoryWritesNothingAndAsksTheTopic() throws Exception {
    NodeAgent.Publishing publishing =
        HostPublishing.of(host(true, Optional.empty()), publisher, 1 << 20, 4096, topicSays(9));

    assertThat(publishing.outbox()).isInstanceOf(MemoryOutbox.class);
    assertThat(publishing.outbox().limitBytes()).isEqualTo(4096);
    assertThat(publishing.previousEpoch()).isEqualTo(9);
    publishing.epochChosen().accept(10);
    try (var written = Files.list(hostRoot)) {
      assertThat(written).isEmpty();
    }
  }

  @Test
  void whenTheTopicCannotBeReadTheAgentDoesNotStart() {
    Supplier<OptionalLong> unreachable =
        () -> {
          throw new IllegalStateException("could not read the last epoch of node n1");
        };

    assertThatThrownBy(
            () -> HostPublishing.of(host(true, Optional.empty()), publisher, 1, 1, unreachable))
        .hasMessageContaining("could not read the last epoch of node n1");
  }
}
