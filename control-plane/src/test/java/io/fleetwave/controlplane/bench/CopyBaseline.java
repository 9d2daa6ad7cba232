package io.fleetwave.controlplane.bench;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.NodeEvent;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.PGConnection;

/**
 * The ceiling: the same events, one row each, by COPY from memory into the projection's own history
 * table ({@code node_events}: its primary key, its day partitions, as full as the projection left
 * it), on the same database with the same durability, in the same run. The rows carry an epoch of
 * their own ({@link #EPOCH}), so none collides with a row the projection wrote. Only the COPY (one
 * transaction, committed) is timed.
 *
 * <p>Until 2026-12-04 the baseline copied into a table of its own without keys or indexes, on a
 * database with fsync off: a ceiling no projection could reach, since the projection's rows pay for
 * their keys.
 */
final class CopyBaseline {
  /** The baseline rows' first epoch: after the bench fleet's, so that their keys are new. */
  static final long EPOCH = BenchFleet.EPOCH + 1;

  /**
   * COPYs measured, each of the same events under an epoch of its own: one COPY of a million rows
   * read 60,900 and 88,700 rows/s in two runs of the same code an hour apart (2026-12-06), as a
   * checkpoint or autovacuum fell in it or not, and the ratio moved with it.
   */
  static final int REPEATS = 3;

  private CopyBaseline() {}

  /** The COPYs' rates, in the order measured, and their median: the baseline of the ratio. */
  record Rates(List<Double> each) {
    double median() {
      List<Double> sorted = each.stream().sorted().toList();
      return sorted.get(sorted.size() / 2);
    }
  }

  /** {@link #REPEATS} COPYs of the fleet's events into {@code node_events}, one after the other. */
  static Rates measure(Connection db, ProjectionBench.BenchSettings settings) throws Exception {
    List<Double> rates = new ArrayList<>();
    for (int i = 0; i < REPEATS; i++) {
      rates.add(measure(db, csv(settings, EPOCH + i)));
    }
    return new Rates(rates);
  }

  /** Rows per second of the COPY of {@code csv} into {@code node_events}. */
  static double measure(Connection db, byte[] csv) throws Exception {
    boolean autoCommit = db.getAutoCommit();
    db.setAutoCommit(true); // the COPY commits as one transaction, flushed as PostgreSQL flushes
    long start = System.nanoTime();
    long rows =
        db.unwrap(PGConnection.class)
            .getCopyAPI()
            .copyIn(
                "COPY node_events (node, epoch, seq, event_id, event_type, event_time, payload)"
                    + " FROM STDIN WITH (FORMAT csv)",
                new ByteArrayInputStream(csv));
    double seconds = (System.nanoTime() - start) / 1e9;
    db.setAutoCommit(autoCommit);
    System.out.printf("COPY of %,d rows into node_events in %.1f s%n", rows, seconds);
    return rows / seconds;
  }

  /** The bench fleet's events as CSV rows of the history's columns, under {@code epoch}. */
  static byte[] csv(ProjectionBench.BenchSettings settings, long epoch) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256 * 1024 * 1024);
    Instant time = Instant.now().truncatedTo(ChronoUnit.MICROS);
    StringBuilder line = new StringBuilder(4096);
    for (long seq = 0; seq < settings.eventsPerNode(); seq++) {
      for (int node = 0; node < settings.nodes(); node++) {
        Envelope<NodeEvent> e = BenchFleet.event(node, seq, time);
        String payload = EventCodec.mapper().writeValueAsString(e.data());
        line.setLength(0);
        line.append(e.subject()).append(',').append(epoch).append(',').append(e.seq());
        line.append(',').append(e.id()).append(',').append(e.type()).append(',');
        line.append(e.time()).append(",\"").append(payload.replace("\"", "\"\"")).append("\"\n");
        out.write(line.toString().getBytes(StandardCharsets.UTF_8));
      }
    }
    return out.toByteArray();
  }
}
