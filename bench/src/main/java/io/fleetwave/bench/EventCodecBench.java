package io.fleetwave.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.EventTypes;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.payload.FleetEvent;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The node-events codec (CloudEvents JSON, the record value of every agent event) both ways, for
 * the most frequent event (a heartbeat), a registration and an 8 x H100 inventory (the largest).
 * Baselines of the same run: Jackson alone reading the same bytes into a tree, and writing that
 * tree back, which is the floor any JSON codec of these bytes pays.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EventCodecBench {
  private static final ObjectMapper JACKSON = new ObjectMapper();

  @Param({"heartbeat", "registered", "inventory"})
  public String event;

  private Envelope<NodeEvent> envelope;
  private byte[] bytes;
  private JsonNode tree;

  @Setup
  public void encodeOnce() throws IOException, EventRejectedException {
    envelope = BenchEvents.envelope(event);
    bytes = EventCodec.encode(envelope);
    tree = JACKSON.readTree(bytes);
    // The codec must read back what it wrote, or the figures measure a failure path.
    if (!EventCodec.decode(bytes).data().equals(envelope.data())) {
      throw new IllegalStateException("the codec does not round-trip " + event);
    }
  }

  @Benchmark
  public byte[] encode() {
    return EventCodec.encode(envelope);
  }

  @Benchmark
  public Envelope<FleetEvent> decode() throws EventRejectedException {
    return EventCodec.decode(bytes);
  }

  /**
   * The decode as it was before the one-pass reader, for a same-run comparison: the CloudEvents SDK
   * parses the record into a JSON tree and an event, the data tree is mapped to the payload. It is
   * still the codec's path for records outside the common shape.
   */
  @Benchmark
  public FleetEvent baselineSdkTree() throws EventRejectedException {
    CloudEvent parsed = EventCodec.parseCloudEvent(bytes);
    return EventCodec.decodePayload(parsed, EventTypes.resolve(parsed.getType()));
  }

  /** Baseline for {@link #decode}: Jackson reads the same bytes into a tree, nothing more. */
  @Benchmark
  public JsonNode baselineJacksonRead() throws IOException {
    return JACKSON.readTree(bytes);
  }

  /** Baseline for {@link #encode}: Jackson writes the same JSON (as a tree) to bytes. */
  @Benchmark
  public byte[] baselineJacksonWrite() throws IOException {
    return JACKSON.writeValueAsBytes(tree);
  }
}
