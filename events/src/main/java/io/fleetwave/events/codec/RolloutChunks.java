package io.fleetwave.events.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutCreatedInChunks;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutPlanChunk;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * How a rollout's creation is logged: one {@link RolloutCreated} while its JSON stays well below
 * Kafka's default record limit (1 MiB, {@code max.message.bytes}), otherwise a {@link
 * RolloutCreatedInChunks} header and {@link RolloutPlanChunk}s whose texts joined are that same
 * JSON. Every record stays below the limit whatever the fleet's size, with or without producer
 * compression.
 */
public final class RolloutChunks {
  /**
   * The largest RolloutCreated logged as one record, in UTF-8 bytes of its data: half of Kafka's
   * default limit, leaving room for the envelope.
   */
  public static final int INLINE_BYTES = 512 * 1024;

  /**
   * The characters of one chunk. In the record its text is a JSON string: at most 3 bytes per
   * character (a quote or backslash takes 2, a non-ASCII character at most 3 in UTF-8, a control
   * character never appears raw in JSON text), so a chunk's record stays below 600 KiB.
   */
  public static final int CHUNK_CHARS = 192 * 1024;

  private RolloutChunks() {}

  /** The events that log {@code created}: itself, or a header and its chunks. */
  public static List<RolloutEvent> of(RolloutCreated created) {
    String text = json(created);
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= INLINE_BYTES) {
      return List.of(created);
    }
    List<RolloutPlanChunk> chunks = new ArrayList<>();
    int start = 0;
    while (start < text.length()) {
      int end = Math.min(text.length(), start + CHUNK_CHARS);
      // Never between the two halves of a surrogate pair: each chunk must be valid text.
      if (end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))) {
        end--;
      }
      chunks.add(new RolloutPlanChunk(chunks.size(), text.substring(start, end)));
      start = end;
    }
    List<RolloutEvent> out = new ArrayList<>(chunks.size() + 1);
    out.add(
        new RolloutCreatedInChunks(created.name(), created.actor(), chunks.size(), sha256(bytes)));
    out.addAll(chunks);
    return out;
  }

  /**
   * The RolloutCreated that a header and its chunks (in index order) stand for.
   *
   * @throws IllegalArgumentException saying what does not match: the count, an index, the hash or
   *     the joined JSON
   */
  public static RolloutCreated join(RolloutCreatedInChunks header, List<RolloutPlanChunk> chunks) {
    if (chunks.size() != header.chunks()) {
      throw new IllegalArgumentException(
          chunks.size() + " chunk(s) for a creation logged in " + header.chunks());
    }
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < chunks.size(); i++) {
      if (chunks.get(i).index() != i) {
        throw new IllegalArgumentException(
            "chunk " + chunks.get(i).index() + " where chunk " + i + " belongs");
      }
      text.append(chunks.get(i).text());
    }
    byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
    String actual = sha256(bytes);
    if (!actual.equals(header.sha256())) {
      throw new IllegalArgumentException(
          "the joined chunks hash to " + actual + ", the header says " + header.sha256());
    }
    RolloutCreated created;
    try {
      created = EventCodec.mapper().readValue(bytes, RolloutCreated.class);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("the joined chunks do not read: " + e.getMessage(), e);
    }
    if (!created.name().equals(header.name()) || !created.actor().equals(header.actor())) {
      throw new IllegalArgumentException(
          "the joined chunks name rollout '"
              + created.name()
              + "' by "
              + created.actor()
              + ", the header '"
              + header.name()
              + "' by "
              + header.actor());
    }
    return created;
  }

  private static String json(RolloutCreated created) {
    try {
      return EventCodec.mapper().writeValueAsString(created);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("RolloutCreated does not write as JSON", e);
    }
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
