package io.fleetwave.controlplane.bench;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.NodeEvent;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.postgresql.PGConnection;

/**
 * The ceiling: the same events as rows of a plain table (the history table's columns and types, no
 * keys), by COPY from memory, on the same database. Only the COPY itself is timed. The payload is
 * text, as the history stores it since V25 (jsonb until then, which made every row of the baseline
 * pay a JSON parse too).
 */
final class CopyBaseline {
  private CopyBaseline() {}

  /**
   * Rows per second of the COPY of {@code csv}, with the payload as the history stores it (text).
   */
  static double measure(Connection db, byte[] csv) throws Exception {
    return measure(db, csv, "text");
  }

  /**
   * The same with the payload as jsonb: the baseline of every run before V25, printed beside the
   * other so that ratios stay comparable across that change.
   */
  static double measureJsonb(Connection db, byte[] csv) throws Exception {
    return measure(db, csv, "jsonb");
  }

  private static double measure(Connection db, byte[] csv, String payloadType) throws Exception {
    String table = "bench_copy_" + payloadType;
    try (Statement s = db.createStatement()) {
      s.execute(
          "CREATE TABLE "
              + table
              + " (node text, epoch bigint, seq bigint, event_id text,"
              + " event_type text, event_time timestamptz, payload "
              + payloadType
              + ")");
    }
    long start = System.nanoTime();
    long rows =
        db.unwrap(PGConnection.class)
            .getCopyAPI()
            .copyIn(
                "COPY " + table + " FROM STDIN WITH (FORMAT csv)", new ByteArrayInputStream(csv));
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf("COPY of %,d rows (payload %s) in %.1f s%n", rows, payloadType, seconds);
    return rows / seconds;
  }

  /** The bench fleet's events as the CSV rows of the history's columns, built once per run. */
  static byte[] csv(ProjectionBench.BenchSettings settings) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256 * 1024 * 1024);
    Instant time = Instant.now().truncatedTo(ChronoUnit.MICROS);
    StringBuilder line = new StringBuilder(4096);
    for (long seq = 0; seq < settings.eventsPerNode(); seq++) {
      for (int node = 0; node < settings.nodes(); node++) {
        Envelope<NodeEvent> e = BenchFleet.event(node, seq, time);
        String payload = EventCodec.mapper().writeValueAsString(e.data());
        line.setLength(0);
        line.append(e.subject()).append(',').append(e.epoch()).append(',').append(e.seq());
        line.append(',').append(e.id()).append(',').append(e.type()).append(',');
        line.append(e.time()).append(",\"").append(payload.replace("\"", "\"\"")).append("\"\n");
        out.write(line.toString().getBytes(StandardCharsets.UTF_8));
      }
    }
    return out.toByteArray();
  }
}
