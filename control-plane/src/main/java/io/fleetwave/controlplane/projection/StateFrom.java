package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.database.ColumnArrays;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.NodeEvent;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code state_from} of the rows of registration_history or inventory_history (V43): the least
 * event time of a row and of every row of its node applied after it, so that an index descent finds
 * a node's row as of any moment (the migration says why). One batch's rows of one table, in the
 * order applied: {@link #of} gives each row's value as far as the batch goes, and {@link #lowering}
 * what the rows already stored must be lowered to, as a row of the batch may be stamped earlier
 * than rows applied before it (a clock set back).
 */
final class StateFrom {
  private final List<Envelope<NodeEvent>> rows;
  private final List<Instant> from;

  /** {@code rows}: one table's rows of a batch, in the order applied. */
  StateFrom(List<Envelope<NodeEvent>> rows) {
    this.rows = rows;
    Instant[] least = new Instant[rows.size()];
    Map<String, Instant> later = new HashMap<>();
    for (int i = rows.size() - 1; i >= 0; i--) {
      Envelope<NodeEvent> row = rows.get(i);
      least[i] = later.merge(row.subject(), row.time(), StateFrom::earlier);
    }
    this.from = List.of(least);
  }

  /** The state_from of the {@code i}th row. */
  OffsetDateTime of(int i) {
    return from.get(i).atOffset(ZoneOffset.UTC);
  }

  /**
   * For each node of the batch: its name, its first row's epoch and seq, and the least time of its
   * rows in the batch (its first row's state_from), as the four arrays of ProjectionTables'
   * lowering statements: a row stored before that first row keeps the lesser of its state_from and
   * that time.
   */
  Tuple lowering() {
    Map<String, Integer> first = new LinkedHashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      first.putIfAbsent(rows.get(i).subject(), i);
    }
    List<Integer> firstRows = new ArrayList<>(first.values());
    return ColumnArrays.of(firstRows)
        .strings(i -> rows.get(i).subject())
        .longs(i -> rows.get(i).epoch())
        .longs(i -> rows.get(i).seq())
        .times(from::get)
        .tuple();
  }

  private static Instant earlier(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }
}
