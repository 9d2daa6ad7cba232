package io.fleetwave.controlplane.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The bound and the single flight of {@link StaleWhileRefresh}, on a clock the test moves. */
class StaleWhileRefreshTest {
  private static final Duration MAX_AGE = Duration.ofSeconds(2);

  private Instant now = Instant.parse("2026-12-01T00:00:00Z");
  private final List<CompletableFuture<String>> loads = new ArrayList<>();
  private final StaleWhileRefresh<String> cache =
      new StaleWhileRefresh<>(this::load, MAX_AGE, () -> now);

  private Uni<String> load() {
    CompletableFuture<String> load = new CompletableFuture<>();
    loads.add(load);
    return Uni.createFrom().completionStage(load);
  }

  private CompletableFuture<String> read() {
    return cache.get().subscribeAsCompletionStage();
  }

  @Test
  void concurrentFirstReadsShareOneLoad() {
    CompletableFuture<String> first = read();
    CompletableFuture<String> second = read();
    assertThat(loads).hasSize(1);
    assertThat(first).isNotDone();
    loads.getFirst().complete("v1");
    assertThat(first).isCompletedWithValue("v1");
    assertThat(second).isCompletedWithValue("v1");
  }

  @Test
  void aYoungValueIsServedWithoutALoad() {
    loaded("v1");
    now = now.plus(MAX_AGE.dividedBy(2)).minusMillis(1);
    assertThat(read()).isCompletedWithValue("v1");
    assertThat(loads).hasSize(1);
  }

  @Test
  void anAgeingValueIsServedWhileOneRefreshRunsInTheBackground() {
    loaded("v1");
    now = now.plus(MAX_AGE.dividedBy(2));
    assertThat(read()).isCompletedWithValue("v1");
    assertThat(read()).isCompletedWithValue("v1");
    assertThat(loads).as("one refresh for both reads").hasSize(2);
    loads.getLast().complete("v2");
    assertThat(read()).isCompletedWithValue("v2");
    assertThat(loads).hasSize(2);
  }

  @Test
  void aValueAsOldAsTheBoundIsNeverServed() {
    loaded("v1");
    now = now.plus(MAX_AGE);
    CompletableFuture<String> read = read();
    assertThat(read).as("waits for the refresh").isNotDone();
    assertThat(loads).hasSize(2);
    loads.getLast().complete("v2");
    assertThat(read).isCompletedWithValue("v2");
  }

  @Test
  void theAgeCountsFromWhenTheLoadStarted() {
    CompletableFuture<String> read = read();
    now = now.plus(MAX_AGE);
    loads.getFirst().complete("slow");
    assertThat(read).isCompletedWithValue("slow");
    assertThat(read()).as("as old as the bound once loaded").isNotDone();
    assertThat(loads).hasSize(2);
  }

  @Test
  void aFailedLoadIsNotKept() {
    CompletableFuture<String> read = read();
    loads.getFirst().completeExceptionally(new IllegalStateException("database down"));
    assertThat(read).isCompletedExceptionally();
    CompletableFuture<String> again = read();
    assertThat(loads).hasSize(2);
    loads.getLast().complete("v1");
    assertThat(again).isCompletedWithValue("v1");
  }

  private void loaded(String value) {
    CompletableFuture<String> read = read();
    loads.getLast().complete(value);
    assertThat(read).isCompletedWithValue(value);
  }
}
