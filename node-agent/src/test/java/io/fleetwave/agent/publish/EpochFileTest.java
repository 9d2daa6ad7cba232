package io.fleetwave.agent.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EpochFileTest {
  @TempDir Path dir;

  @Test
  void aRunAfterTheClockWentBackStillGetsALargerEpoch() {
    Instant now = Instant.parse("2026-11-30T10:00:00Z");
    EpochFile epochs = new EpochFile(dir);
    long first =
        NodeEventStream.nextEpoch(epochs.last().orElse(0), Clock.fixed(now, ZoneOffset.UTC));
    epochs.remember(first);

    Clock backwards = Clock.fixed(now.minus(Duration.ofDays(1)), ZoneOffset.UTC);
    long second = NodeEventStream.nextEpoch(new EpochFile(dir).last().orElse(0), backwards);

    assertThat(first).isEqualTo(now.toEpochMilli());
    assertThat(second).isEqualTo(first + 1);
  }

  @Test
  void noFileOrAnUnreadableOneIsNoEpoch() throws Exception {
    assertThat(new EpochFile(dir).last()).isEmpty();
    Files.writeString(dir.resolve(EpochFile.NAME), "not a number\n");
    assertThat(new EpochFile(dir).last()).isEmpty();
  }
}
