package io.fleetwave.agent.desired;

/**
 * One node's receiver of the records {@link CommandFollower} reads for it. Called on the follower's
 * poll thread: implementations hand the work over and return at once.
 */
public interface CommandSink {
  String node();

  /** False once the agent run behind it stopped; the follower then drops it. */
  boolean active();

  /**
   * The desired topic was read to the end offsets it had when this sink joined.
   *
   * @param latestDesired the node's latest record value there, or null if it has none
   * @param newestTrusted the record with the highest generation signed for this node by a trusted
   *     key (the same array as {@code latestDesired} when that is it), or null if none is
   */
  void caughtUp(byte[] latestDesired, byte[] newestTrusted);

  /** A tombstone (null value) for this node on the desired topic; it deleted nothing. */
  void tombstone();

  /**
   * Reading the desired topic to its end did not finish in time, or its end could not be read: said
   * once; records come as they are read from now on, and {@link #caughtUp} still follows once the
   * end is reached.
   */
  void catchUpFailed(String reason);

  /** A later record of the desired topic for this node. */
  void desired(byte[] value);

  /** A one-shot command for this node. */
  void command(byte[] value);
}
