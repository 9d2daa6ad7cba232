package io.fleetwave.controlplane.embedded;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Entry point: starts the embedded Kafka and PostgreSQL when none are configured, then Quarkus, and
 * stops the embedded services after Quarkus has stopped, also on Ctrl-C (a shutdown hook holds the
 * JVM until they are down, for at most {@link #STOP_BOUND_S} s).
 */
@QuarkusMain
public final class FleetwaveMain {
  static final int STOP_BOUND_S = 30;

  private FleetwaveMain() {}

  public static void main(String... args) {
    ExternalServices external = ExternalServices.detect(System.getenv(), System.getProperties());
    EmbeddedServices embedded = EmbeddedServices.startMissing(external, System.getProperties());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> awaitQuietly(stopped), "fleetwave-await-embedded-stop"));
    AtomicInteger exitCode = new AtomicInteger();
    try {
      Quarkus.run(FleetwaveApplication.class, (code, failure) -> exitCode.set(code), args);
    } finally {
      embedded.close();
      stopped.countDown();
    }
    System.exit(exitCode.get());
  }

  private static void awaitQuietly(CountDownLatch stopped) {
    try {
      stopped.await(STOP_BOUND_S, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
