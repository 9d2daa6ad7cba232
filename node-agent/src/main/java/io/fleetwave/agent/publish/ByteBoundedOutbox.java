package io.fleetwave.agent.publish;

/**
 * What every {@link Outbox} keeps the same way: the encoded bytes it holds, counted against its
 * bound. The stores differ only in where the events live (memory, a spool file).
 */
abstract class ByteBoundedOutbox implements Outbox {
  private final long limitBytes;
  private long bytes;

  ByteBoundedOutbox(long limitBytes) {
    this.limitBytes = limitBytes;
  }

  /** Whether {@code size} more bytes stay within the bound. */
  final synchronized boolean fits(long size) {
    return bytes + size <= limitBytes;
  }

  /** {@code size} bytes more are held. */
  final synchronized void held(long size) {
    bytes += size;
  }

  /** {@code size} bytes are held no more. */
  final synchronized void released(long size) {
    bytes -= size;
  }

  @Override
  public final synchronized long bytes() {
    return bytes;
  }

  @Override
  public final long limitBytes() {
    return limitBytes;
  }
}
