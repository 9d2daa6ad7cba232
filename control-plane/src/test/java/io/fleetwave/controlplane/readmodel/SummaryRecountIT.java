package io.fleetwave.controlplane.readmodel;

import static org.awaitility.Awaitility.await;

import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * While the fleet summary is being read it is recounted on schedule, not only when a read finds it
 * due, so a dashboard polling at the max-age finds a fresh value instead of waiting for a count.
 */
@QuarkusTest
class SummaryRecountIT {
  @Inject SummaryQueries summaries;

  /** The value held changes with no read in between: without the job it would only expire. */
  // A recount of an unchanged fleet gives an equal summary: identity is what tells it happened.
  @SuppressWarnings("ReferenceEquality")
  @Test
  void recountsOnScheduleWhileTheSummaryIsRead() {
    summaries.summary().await().atMost(Duration.ofSeconds(10));
    FleetSummary first = summaries.held().orElseThrow();

    await("a recount with no read in between")
        .atMost(Duration.ofSeconds(10))
        .until(() -> summaries.held().filter(held -> held != first).isPresent());
  }
}
