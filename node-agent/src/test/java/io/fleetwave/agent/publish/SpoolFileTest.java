package io.fleetwave.agent.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.NodeEvent;
import java.io.IOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The spool against the real file system: what a run leaves, the next run reads back in order. */
class SpoolFileTest {
  @TempDir Path dir;

  private static Envelope<NodeEvent> event(long epoch, long seq) {
    return Envelope.of(
        URI.create("fleetwave:agent/n"),
        "n",
        Instant.parse("2026-11-30T10:00:00Z"),
        epoch,
        seq,
        new Heartbeat("boot-" + seq, seq));
  }

  /** A spool left by a run that kept events (1, 0) and (1, 1): its file. */
  private Path spoolOfTwoEvents() {
    try (SpoolFile spool = SpoolFile.open(dir, SpoolFile.DEFAULT_LIMIT_BYTES)) {
      spool.offer(event(1, 0));
      spool.offer(event(1, 1));
      return spool.file();
    }
  }

  private static List<Envelope<NodeEvent>> drain(Outbox outbox) {
    List<Envelope<NodeEvent>> read = new ArrayList<>();
    while (outbox.head().isPresent()) {
      read.add(outbox.head().get());
      outbox.removeHead();
    }
    return read;
  }

  @Test
  void whatARunLeavesIsReadBackInOrderByTheNextRun() {
    List<Envelope<NodeEvent>> written = List.of(event(5, 0), event(5, 1), event(5, 2));
    try (SpoolFile spool = SpoolFile.open(dir, SpoolFile.DEFAULT_LIMIT_BYTES)) {
      written.forEach(e -> assertThat(spool.offer(e)).isTrue());
      spool.head(); // a crash now: nothing acknowledged
    }

    try (SpoolFile next = SpoolFile.open(dir, SpoolFile.DEFAULT_LIMIT_BYTES)) {
      assertThat(next.depth()).isEqualTo(3);
      assertThat(next.newestEpoch()).isEqualTo(5);
      assertThat(drain(next)).isEqualTo(written);
    }
  }

  @Test
  void acknowledgedEventsAreForgottenAndTheFileIsTruncatedOnceAllAre() throws IOException {
    try (SpoolFile spool = SpoolFile.open(dir, SpoolFile.DEFAULT_LIMIT_BYTES)) {
      spool.offer(event(1, 0));
      spool.offer(event(1, 1));
      spool.removeHead();
      assertThat(Files.size(spool.file())).isPositive();
      spool.removeHead();

      assertThat(Files.size(spool.file())).isZero();
      assertThat(spool.bytes()).isZero();
    }
    try (SpoolFile next = SpoolFile.open(dir, SpoolFile.DEFAULT_LIMIT_BYTES)) {
      assertThat(next.depth()).isZero();
      assertThat(next.newestEpoch()).isEqualTo(-1);
    }
  }

  @Test
  void aFrameTornByACrashIsCutAndTheWholeOnesBeforeItAreKept() throws IOException {
    Path file = spoolOfTwoEvents();
    long whole = Files.size(file);
    // Half of a third frame, as a crash during its append leaves it.
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.write(java.nio.ByteBuffer.wrap(new byte[] {0, 0, 1, 0, 7, 7, 7, 7, 1, 2}), whole);
    }

    try (SpoolFile next = SpoolFile.open(dir, SpoolFile.DEFAULT_LIMIT_BYTES)) {
      assertThat(Files.size(file)).isEqualTo(whole);
      assertThat(drain(next)).extracting(Envelope::seq).containsExactly(0L, 1L);
    }
  }

  @Test
  void aCorruptedFrameIsNotSentAndNorIsAnythingAfterIt() throws IOException {
    Path file = spoolOfTwoEvents();
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length - 3] ^= 0x55; // a flipped bit in the last frame's payload
    Files.write(file, bytes);

    try (SpoolFile next = SpoolFile.open(dir, SpoolFile.DEFAULT_LIMIT_BYTES)) {
      assertThat(drain(next)).extracting(Envelope::seq).containsExactly(0L);
    }
  }

  @Test
  void anEventThatWouldPassTheBoundIsRefusedAndRoomReturnsAsTheHeadIsAcknowledged() {
    try (SpoolFile spool = SpoolFile.open(dir, 1500)) {
      int kept = 0;
      while (kept < 100 && spool.offer(event(1, kept))) {
        kept++;
      }
      assertThat(kept).isBetween(2, 10);
      assertThat(spool.bytes()).isLessThanOrEqualTo(1500);

      spool.removeHead();
      assertThat(spool.offer(event(1, kept))).isTrue();
    }
  }

  @Test
  void underABacklogTheAcknowledgedHeadIsCompactedAwayKeepingTheOrder() throws IOException {
    int compactAt = 4096;
    try (SpoolFile spool = SpoolFile.open(dir, SpoolFile.DEFAULT_LIMIT_BYTES, compactAt)) {
      long seq = 0;
      // Always some behind: the file never empties, so only compaction can shrink it.
      while (seq < 400) {
        spool.offer(event(2, seq++));
        if (seq % 4 == 0) {
          spool.removeHead();
          spool.removeHead();
          spool.removeHead();
        }
      }
      assertThat(spool.depth()).isEqualTo(100);
      assertThat(spool.head().orElseThrow().seq()).isEqualTo(300);
      assertThat(Files.size(spool.file())).isLessThan(spool.bytes() + compactAt + 200);
    }
    try (SpoolFile next = SpoolFile.open(dir, SpoolFile.DEFAULT_LIMIT_BYTES, compactAt)) {
      // The next run also gets the acknowledged events not compacted away yet: duplicates the
      // projection skips; never a gap, never out of order.
      List<Long> seqs = drain(next).stream().map(Envelope::seq).toList();
      assertThat(seqs.getFirst()).isLessThanOrEqualTo(300L);
      assertThat(seqs.getLast()).isEqualTo(399L);
      assertThat(seqs).hasSize((int) (400 - seqs.getFirst())).isSorted();
    }
  }
}
