package io.fleetwave.controlplane.database;

import io.vertx.mutiny.sqlclient.Row;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reading a query's rows: its first row, a timestamptz column as an instant, rows grouped by a
 * column.
 */
public final class Rows {
  private Rows() {}

  /** The first row, or empty when there is none: the row of a query that finds one or none. */
  public static Optional<Row> first(Iterable<Row> rows) {
    Iterator<Row> iterator = rows.iterator();
    return iterator.hasNext() ? Optional.of(iterator.next()) : Optional.empty();
  }

  /** What {@code value} makes of each row, in row order. */
  public static <V> List<V> each(Iterable<Row> rows, Function<Row, V> value) {
    List<V> values = new ArrayList<>();
    for (Row row : rows) {
      values.add(value.apply(row));
    }
    return values;
  }

  /** What {@code value} makes of each row, under the row's {@code key}: one row a key. */
  public static <K, V> Map<K, V> byKey(
      Iterable<Row> rows, Function<Row, K> key, Function<Row, V> value) {
    Map<K, V> values = new HashMap<>();
    for (Row row : rows) {
      values.put(key.apply(row), value.apply(row));
    }
    return values;
  }

  /** The column's time, null where the column is null. */
  public static Instant instant(Row row, String column) {
    OffsetDateTime value = row.getOffsetDateTime(column);
    return value == null ? null : value.toInstant();
  }

  /**
   * What {@code value} makes of each row, grouped by {@code key}: the groups in the order of their
   * first row, each in row order.
   */
  public static <K, V> Map<K, List<V>> grouped(
      Iterable<Row> rows, Function<Row, K> key, Function<Row, V> value) {
    Map<K, List<V>> groups = new LinkedHashMap<>();
    for (Row row : rows) {
      groups.computeIfAbsent(key.apply(row), k -> new ArrayList<>()).add(value.apply(row));
    }
    return groups;
  }
}
