package io.fleetwave.controlplane.database;

import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * A batch's rows as parallel arrays, one a column, bound in the order the columns are named: the
 * parameters of one statement over {@code unnest($1::text[], $2::bigint[], ...)} that writes the
 * whole batch, instead of one execution per row.
 *
 * @param <R> what one row is made from
 */
public final class ColumnArrays<R> {
  private final List<R> rows;
  private final Tuple arrays;

  private ColumnArrays(Tuple leading, List<R> rows) {
    this.rows = rows;
    this.arrays = leading;
  }

  /** The columns of {@code rows}, from the first parameter on. */
  public static <R> ColumnArrays<R> of(List<R> rows) {
    return new ColumnArrays<>(Tuple.tuple(), rows);
  }

  /**
   * The columns of {@code rows} after the parameters {@code leading} holds (such as $1, the rollout
   * the rows belong to); they are added to {@code leading}.
   */
  public static <R> ColumnArrays<R> after(Tuple leading, List<R> rows) {
    return new ColumnArrays<>(leading, rows);
  }

  public ColumnArrays<R> strings(Function<? super R, String> column) {
    return add(arrays::addArrayOfString, column(column, String[]::new));
  }

  public ColumnArrays<R> longs(Function<? super R, Long> column) {
    return add(arrays::addArrayOfLong, column(column, Long[]::new));
  }

  public ColumnArrays<R> integers(Function<? super R, Integer> column) {
    return add(arrays::addArrayOfInteger, column(column, Integer[]::new));
  }

  public ColumnArrays<R> booleans(Function<? super R, Boolean> column) {
    return add(arrays::addArrayOfBoolean, column(column, Boolean[]::new));
  }

  /** A timestamptz column, written in UTC; a null instant stays null. */
  public ColumnArrays<R> times(Function<? super R, Instant> column) {
    return add(
        arrays::addArrayOfOffsetDateTime,
        column(
            row -> {
              Instant instant = column.apply(row);
              return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
            },
            OffsetDateTime[]::new));
  }

  /** The parameters: the leading ones, then one array a column. */
  public Tuple tuple() {
    return arrays;
  }

  private <T> ColumnArrays<R> add(Consumer<T[]> parameter, T[] values) {
    parameter.accept(values);
    return this;
  }

  private <T> T[] column(Function<? super R, ? extends T> column, IntFunction<T[]> array) {
    T[] values = array.apply(rows.size());
    for (int i = 0; i < values.length; i++) {
      values[i] = column.apply(rows.get(i));
    }
    return values;
  }
}
