package io.fleetwave.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fleetwave.testsupport.network.StandInHttp;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * rollout status --watch against a stand-in API (the JDK's HttpServer) that answers a scripted
 * sequence: the exit codes of each ending, and an outage in the middle of a watch.
 */
class WatchTest {
  private static final String ID = "7d5b0c1e-0000-4000-8000-000000000001";
  private HttpServer server;

  /** Status and body per GET, in order; the last one repeats. */
  private String serve(List<Answer> answers) throws IOException {
    Deque<Answer> script = new ArrayDeque<>(answers);
    server = StandInHttp.loopbackServer();
    server.createContext(
        "/api/v1/rollouts/" + ID,
        exchange -> {
          Answer answer = script.size() > 1 ? script.poll() : script.peek();
          StandInHttp.sendJson(exchange, answer.status(), answer.body());
        });
    server.start();
    return StandInHttp.url(server);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private record Answer(int status, String body) {}

  /** What a gateway answers while no control plane replica serves. */
  private static final Answer UNAVAILABLE =
      new Answer(503, "{\"title\": \"Unavailable\", \"status\": 503}");

  /** The rollout running, its one node in flight: where every watch here starts. */
  private static final Answer RUNNING = view("running", 0, 0, null);

  /** The rollout's summary (GET .../summary): one wave of one node. */
  private static Answer view(String state, int succeeded, int failed, String reason) {
    int inFlight = 1 - succeeded - failed;
    return new Answer(
        200,
        """
        {"id": "%s", "name": "r1", "state": "%s", "currentWave": 1,
         "awaitingPromotion": false, "statusReason": %s, "pausedBy": null,
         "counts": {"pending": 0, "in-flight": %d, "succeeded": %d, "failed": %d},
         "waves": [{"index": 1, "nodes": 1,
           "counts": {"pending": 0, "in-flight": %d, "succeeded": %d, "failed": %d}}]}
        """
            .formatted(
                ID,
                state,
                reason == null ? "null" : "\"" + reason + "\"",
                inFlight,
                succeeded,
                failed,
                inFlight,
                succeeded,
                failed));
  }

  private Run watch(List<Answer> answers, String... extra) throws IOException {
    String url = serve(answers);
    List<String> args =
        new java.util.ArrayList<>(
            List.of("rollout", "status", ID, "--watch", "--interval", "50", "--server", url));
    args.addAll(List.of(extra));
    return Run.of(args.toArray(String[]::new));
  }

  @Test
  void aCompletedRolloutExits0() throws IOException {
    Run run = watch(List.of(RUNNING, view("completed", 1, 0, null)));
    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.out())
        .isEqualTo(
            """
            rollout r1 running, wave 1/1
            wave 1/1 [--------------------] 0/1  in-flight 1
            rollout r1 completed, wave 1/1
            wave 1/1 [####################] 1/1  succeeded 1
            rollout r1 (%s) completed: 1 succeeded, 0 failed
            """
                .formatted(ID));
  }

  @Test
  void anAbortedRolledBackOrPartlyFailedRolloutExits3() throws IOException {
    for (Answer end :
        List.of(
            view("aborted", 0, 0, "operator: wrong layout"),
            view("rolled-back", 0, 1, "wave 1 failed"),
            view("completed", 0, 1, null))) {
      Run run = watch(List.of(RUNNING, end));
      assertThat(run.exit()).as(run.toString()).isEqualTo(3);
      assertThat(run.out().lines().reduce((a, b) -> b).orElseThrow())
          .startsWith("rollout NOT completed: r1 (" + ID + ") ");
      stop();
    }
  }

  @Test
  void anOutageShorterThanTheBoundIsRiddenOut() throws IOException {
    Run run = watch(List.of(RUNNING, UNAVAILABLE, UNAVAILABLE, view("completed", 1, 0, null)));
    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.err())
        .startsWith("warning: 503 Unavailable; trying again for up to 60 s (--outage)\n")
        .endsWith("the API answers again\n");
  }

  @Test
  void anOutageLongerThanTheBoundExits1() throws IOException {
    Run run = watch(List.of(RUNNING, UNAVAILABLE), "--outage", "1");
    assertThat(run.exit()).as(run.toString()).isEqualTo(1);
    assertThat(run.err()).endsWith("error: 503 Unavailable\n");
  }

  @Test
  void aClientErrorDuringTheWatchIsNotRetried() throws IOException {
    Run run =
        watch(
            List.of(
                RUNNING,
                new Answer(
                    404,
                    "{\"title\": \"Unknown rollout\", \"status\": 404, \"detail\": \"gone\"}")));
    assertThat(run.exit()).as(run.toString()).isEqualTo(1);
    assertThat(run.err()).isEqualTo("error: 404 Unknown rollout: gone\n");
  }

  @Test
  void theWatchGivesUpAtItsTimeout() throws IOException {
    Run run = watch(List.of(view("paused", 0, 0, "threshold")), "--timeout", "1");
    assertThat(run.exit()).as(run.toString()).isEqualTo(1);
    assertThat(run.out()).startsWith("rollout r1 paused, wave 1/1 (threshold)\n");
    assertThat(run.err()).isEqualTo("error: rollout " + ID + " still paused after --timeout 1 s\n");
  }
}
