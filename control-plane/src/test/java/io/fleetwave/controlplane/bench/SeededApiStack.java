package io.fleetwave.controlplane.bench;

import io.fleetwave.controlplane.fixtures.ControlPlaneProcess;
import io.fleetwave.embedded.EmbeddedKafka;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.vertx.mutiny.core.Vertx;
import java.nio.file.Path;

/**
 * What the API benches measure: the packaged control plane (2 GiB of heap), its rollout engine off
 * so that it leaves the rollouts a bench seeds alone, on embedded Kafka with the control plane's
 * topics and an embedded PostgreSQL; with a Vert.x for the bench's own pools.
 */
record SeededApiStack(
    EmbeddedKafka kafka, EmbeddedPostgres postgres, Vertx vertx, ControlPlaneProcess controlPlane) {

  /** A bench's measurements on the stack. */
  interface Bench {
    void run(SeededApiStack stack) throws Exception;
  }

  /**
   * Starts the stack, runs {@code bench} on it, then stops it all; {@code log}: the app's output.
   */
  static void run(Path app, int port, Path log, Bench bench) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedPostgres postgres = EmbeddedPostgres.start()) {
      BenchServices.createTopics(kafka);
      Vertx vertx = Vertx.vertx();
      try (ControlPlaneProcess controlPlane =
          ControlPlaneProcess.start(
              app, port, BenchServices.controlPlaneWithoutEngine(kafka, postgres), log, "2g")) {
        bench.run(new SeededApiStack(kafka, postgres, vertx, controlPlane));
      } finally {
        vertx.closeAndAwait();
      }
    }
  }
}
