package io.fleetwave.agent.publish;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.payload.FleetEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The outbox of an agent on a writable host: an append-only file {@value #NAME} in the state
 * directory, so events survive an agent crash or a node reboot while the broker is unreachable.
 *
 * <p>Each event is one frame: length (4 bytes), CRC32C of the payload (4 bytes), the CloudEvents
 * JSON. Fsync policy: every append is forced to disk before the event is offered to Kafka, so an
 * event that may have reached the topic is never missing from the spool, and one that is in the
 * spool survives a power cut. Acknowledged events are forgotten by truncating the file to zero once
 * everything is acknowledged (the usual case: the outbox is empty between events), or, under a
 * backlog, by rewriting the unacknowledged tail to a new file (atomic rename) once the acknowledged
 * head passes {@value #COMPACT_AT} bytes. A crash between an acknowledgement and the truncation
 * replays that event in the next run: a duplicate (node, epoch, seq) the projection skips. At open,
 * a frame torn by a crash during its append (short, or its CRC does not match) is cut with
 * everything after it: that event was never offered to Kafka.
 */
public final class SpoolFile extends ByteBoundedOutbox {
  public static final String NAME = "events.spool";

  /** Default bound: 64 MiB, days of heartbeats and inventories of a node. */
  public static final long DEFAULT_LIMIT_BYTES = 64L * 1024 * 1024;

  static final int COMPACT_AT = 1024 * 1024;
  private static final int HEADER = 8;
  private static final int MAX_FRAME = 16 * 1024 * 1024;
  private static final System.Logger LOG = System.getLogger(SpoolFile.class.getName());

  private record Frame(long position, int length, long epoch) {}

  private final Path file;
  private final int compactAt;
  private final Deque<Frame> frames = new ArrayDeque<>();
  private FileChannel channel;
  private long end;
  private boolean writeFailureLogged;

  private SpoolFile(Path file, long limitBytes, int compactAt, FileChannel channel) {
    super(limitBytes);
    this.file = file;
    this.compactAt = compactAt;
    this.channel = channel;
  }

  /**
   * Opens (or creates) the spool in {@code stateDirectory} and reads back what a previous run left
   * there, to be delivered before anything new.
   *
   * @throws UncheckedIOException naming the file when it cannot be opened or read
   */
  public static SpoolFile open(Path stateDirectory, long limitBytes) {
    return open(stateDirectory, limitBytes, COMPACT_AT);
  }

  static SpoolFile open(Path stateDirectory, long limitBytes, int compactAt) {
    if (limitBytes <= 0) {
      throw new IllegalArgumentException("spool bound must be positive: " + limitBytes);
    }
    Path file = stateDirectory.resolve(NAME);
    try {
      Files.createDirectories(stateDirectory);
      FileChannel channel =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      SpoolFile spool = new SpoolFile(file, limitBytes, compactAt, channel);
      spool.readBack();
      return spool;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the event spool " + file + ": " + e, e);
    }
  }

  private void readBack() throws IOException {
    long size = channel.size();
    long position = 0;
    while (position < size) {
      Optional<Frame> frame = readFrame(position, size);
      if (frame.isEmpty()) {
        LOG.log(
            Level.WARNING,
            "event spool {0}: cut {1} bytes from byte {2}: a frame torn by a crash during its"
                + " append (never offered to Kafka) or damaged on disk",
            file,
            size - position,
            position);
        channel.truncate(position);
        channel.force(true);
        break;
      }
      if (frame.get().epoch() >= 0) {
        frames.addLast(frame.get());
        held(HEADER + frame.get().length());
      }
      position += HEADER + frame.get().length();
    }
    end = channel.size();
    if (!frames.isEmpty()) {
      LOG.log(
          Level.INFO,
          "event spool {0} holds {1} events ({2} bytes) not acknowledged before the last stop:"
              + " delivering them first, in order",
          file,
          frames.size(),
          bytes());
    }
  }

  /** The frame at {@code position}, empty when torn; epoch -1 when it does not decode. */
  private Optional<Frame> readFrame(long position, long size) throws IOException {
    if (position + HEADER > size) {
      return Optional.empty();
    }
    ByteBuffer header = ByteBuffer.allocate(HEADER);
    readFully(header, position);
    int length = header.getInt(0);
    int crc = header.getInt(4);
    if (length <= 0 || length > MAX_FRAME || position + HEADER + length > size) {
      return Optional.empty();
    }
    byte[] payload = new byte[length];
    readFully(ByteBuffer.wrap(payload), position + HEADER);
    if (crc32c(payload) != crc) {
      return Optional.empty();
    }
    try {
      return Optional.of(new Frame(position, length, EventCodec.decode(payload).epoch()));
    } catch (EventRejectedException e) {
      // Whole and checksummed, yet this build cannot read it: it cannot be sent either.
      LOG.log(
          Level.ERROR,
          "event spool {0}: skipped the event at byte {1}, which this build cannot read: {2}",
          file,
          position,
          e.getMessage());
      return Optional.of(new Frame(position, length, -1));
    }
  }

  @Override
  public synchronized boolean offer(Envelope<NodeEvent> envelope) {
    byte[] payload = EventCodec.encode(envelope);
    if (!fits(HEADER + payload.length)) {
      return false;
    }
    ByteBuffer frame = ByteBuffer.allocate(HEADER + payload.length);
    frame.putInt(payload.length).putInt(crc32c(payload)).put(payload).flip();
    try {
      while (frame.hasRemaining()) {
        channel.write(frame, end + frame.position());
      }
      channel.force(false);
    } catch (IOException e) {
      if (!writeFailureLogged) {
        writeFailureLogged = true;
        LOG.log(Level.ERROR, "event spool {0}: append failed, events are dropped: {1}", file, e);
      }
      return false;
    }
    writeFailureLogged = false;
    frames.addLast(new Frame(end, payload.length, envelope.epoch()));
    end += HEADER + payload.length;
    held(HEADER + payload.length);
    return true;
  }

  @Override
  @SuppressWarnings("unchecked") // the spool holds only node events: offer takes nothing else
  public synchronized Optional<Envelope<NodeEvent>> head() {
    Frame head = frames.peekFirst();
    if (head == null) {
      return Optional.empty();
    }
    byte[] payload = new byte[head.length()];
    try {
      readFully(ByteBuffer.wrap(payload), head.position() + HEADER);
      Envelope<FleetEvent> envelope = EventCodec.decode(payload);
      return Optional.of((Envelope<NodeEvent>) (Envelope<?>) envelope);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the event spool " + file + ": " + e, e);
    } catch (EventRejectedException e) {
      throw new IllegalStateException("event spool " + file + " changed under the agent", e);
    }
  }

  @Override
  public synchronized void removeHead() {
    Frame head = frames.pollFirst();
    if (head == null) {
      return;
    }
    released(HEADER + head.length());
    try {
      if (frames.isEmpty()) {
        channel.truncate(0);
        channel.force(true);
        end = 0;
      } else if (frames.peekFirst().position() >= compactAt) {
        compact();
      }
    } catch (IOException e) {
      // Not fatal: the acknowledged events stay in the file and a next run sends them again,
      // duplicates the projection skips.
      LOG.log(Level.WARNING, "event spool {0}: could not forget acknowledged events: {1}", file, e);
    }
  }

  /** Rewrites the unacknowledged tail to a new file and renames it over the spool. */
  private void compact() throws IOException {
    long from = frames.peekFirst().position();
    DurableFiles.replace(
        file,
        out -> {
          long copied = 0;
          while (copied < end - from) {
            copied += channel.transferTo(from + copied, end - from - copied, out);
          }
        });
    channel.close();
    channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    Deque<Frame> moved = new ArrayDeque<>();
    for (Frame frame : frames) {
      moved.addLast(new Frame(frame.position() - from, frame.length(), frame.epoch()));
    }
    frames.clear();
    frames.addAll(moved);
    end -= from;
  }

  private void readFully(ByteBuffer buffer, long position) throws IOException {
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        throw new IOException("unexpected end of " + file + " at byte " + position);
      }
    }
  }

  private static int crc32c(byte[] payload) {
    CRC32C crc = new CRC32C();
    crc.update(payload);
    return (int) crc.getValue();
  }

  @Override
  public synchronized int depth() {
    return frames.size();
  }

  @Override
  public synchronized long newestEpoch() {
    return frames.isEmpty() ? -1 : frames.stream().mapToLong(Frame::epoch).max().orElse(-1);
  }

  @Override
  public String describe() {
    return "spool file " + file + " (bound " + limitBytes() + " bytes)";
  }

  public Path file() {
    return file;
  }

  @Override
  public synchronized void close() {
    try {
      channel.close();
    } catch (IOException e) {
      LOG.log(Level.WARNING, "event spool {0}: close failed: {1}", file, e);
    }
  }
}
