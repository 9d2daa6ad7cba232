package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.database.DatabaseFailures;
import io.fleetwave.core.projection.BatchChanges;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.pgclient.PgException;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Applies a batch so that an event whose data PostgreSQL refuses ({@link DatabaseFailures#refusal}:
 * a constraint, a NUL byte, an oversized value) cannot hold back the events around it. The whole
 * batch is tried first; on a refusal it is split in two halves applied one after the other,
 * recursively, down to the single refused events, which go to {@code refuse} and are not applied.
 * Pieces run in log order, each in its own transaction, so every node's events keep their order,
 * and a piece after a refused event runs only once {@code refuse} is done (for the live projection:
 * once the dead letter is on the broker). k refused events among n cost about 2·k·log2(n) extra
 * transactions; a batch without one costs nothing more.
 *
 * <p>Any other failure of an attempt is not handled here: it fails the whole application.
 *
 * @param <T> an item of the batch, from which {@code attempt} takes the event
 */
public final class RefusalIsolation<T> {
  private final Function<List<T>, Uni<BatchChanges>> attempt;
  private final BiFunction<T, PgException, Uni<Void>> refuse;

  /**
   * @param attempt applies a piece of the batch in one transaction
   * @param refuse what to do with an event the database refused (it is not applied)
   */
  public RefusalIsolation(
      Function<List<T>, Uni<BatchChanges>> attempt, BiFunction<T, PgException, Uni<Void>> refuse) {
    this.attempt = attempt;
    this.refuse = refuse;
  }

  public Uni<BatchChanges> apply(List<T> items) {
    if (items.isEmpty()) {
      return Uni.createFrom().item(BatchChanges.NONE);
    }
    return attempt
        .apply(items)
        .onFailure(failure -> DatabaseFailures.refusal(failure).isPresent())
        .recoverWithUni(failure -> split(items, DatabaseFailures.refusal(failure).orElseThrow()));
  }

  private Uni<BatchChanges> split(List<T> items, PgException refusal) {
    if (items.size() == 1) {
      return refuse.apply(items.getFirst(), refusal).replaceWith(BatchChanges.NONE);
    }
    List<List<T>> halves =
        List.of(
            List.copyOf(items.subList(0, items.size() / 2)),
            List.copyOf(items.subList(items.size() / 2, items.size())));
    // Concatenated, not chained: the stack stays flat when pieces complete synchronously.
    return Multi.createFrom()
        .iterable(halves)
        .onItem()
        .transformToUniAndConcatenate(this::apply)
        .collect()
        .with(Collectors.reducing(BatchChanges.NONE, BatchChanges::then));
  }
}
