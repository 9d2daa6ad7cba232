package io.fleetwave.controlplane.audit;

import io.fleetwave.controlplane.audit.store.AuditTrail;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageRequest;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.panache.common.Sort;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The audit log as read (GET /api/v1/audit), through Hibernate Reactive with Panache; written by
 * {@link AuditTrail}, each entry a fact on fleet.control-facts first.
 */
@ApplicationScoped
public class AuditLog {

  /** Entries newest first, of one actor when given, at or after {@code since} when given. */
  public Uni<Page<AuditEntryView>> list(String actor, Instant since, PageRequest paging) {
    StringBuilder where = new StringBuilder("1 = 1");
    Map<String, Object> parameters = new HashMap<>();
    if (actor != null) {
      where.append(" and actor = :actor");
      parameters.put("actor", actor);
    }
    if (since != null) {
      where.append(" and at >= :since");
      parameters.put("since", since);
    }
    Sort newestFirst = Sort.descending("at", "id");
    return Panache.withSession(
        () -> {
          var query =
              AuditEntry.<AuditEntry>find(where.toString(), newestFirst, parameters)
                  .page(paging.page(), paging.size());
          return query
              .list()
              .chain(
                  entries ->
                      query
                          .count()
                          .map(
                              total ->
                                  new Page<>(
                                      entries.stream().map(AuditEntryView::of).toList(),
                                      paging.page(),
                                      paging.size(),
                                      total)));
        });
  }
}
