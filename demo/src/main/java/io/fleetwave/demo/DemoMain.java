package io.fleetwave.demo;

import io.fleetwave.controlplane.app.FleetwaveMain;
import io.fleetwave.controlplane.app.ServiceSettings;
import io.fleetwave.events.security.CommandSigner;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;
import io.quarkus.runtime.util.ExceptionUtil;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The demo's entry point ({@code ./fleetwave demo}): the production control plane plus, for
 * whichever of Kafka and PostgreSQL is not configured, an embedded one, a generated signing key
 * when none is configured, a stand-in identity provider (tokens printed at start) when none is
 * configured, and the simulated fleet. The embedded services stop after Quarkus has stopped, also
 * on Ctrl-C and SIGTERM ({@link StopSignals}; where the JVM stops for another reason, a shutdown
 * hook holds it until they are down, for at most {@link #STOP_BOUND_S} s). The console shows a
 * short banner; the logs go to a file ({@link DemoConsole}).
 */
@QuarkusMain(name = "demo")
public final class DemoMain {
  static final int STOP_BOUND_S = 30;
  static final String SIGNING_KEY = "fleetwave.commands.private-key";
  // The embedded services' records until Quarkus has configured logging (HeldServiceLogs).
  private static volatile HeldServiceLogs serviceLogs;

  private DemoMain() {}

  public static void main(String... args) {
    ServiceSettings external = ServiceSettings.of(System.getenv(), System.getProperties());
    FleetwaveMain.completeDatabaseSettingsOrExit(external);
    if (System.getenv("FLEETWAVE_COMMANDS_PRIVATE_KEY") == null
        && System.getProperty(SIGNING_KEY) == null) {
      // The simulated agents verify with its public half (DemoFleet); nothing outlives the demo.
      System.setProperty(SIGNING_KEY, CommandSigner.generate().privateKeyPem());
      System.err.println("fleetwave demo: no " + SIGNING_KEY + " configured, generated one");
    }
    if (System.getenv("FLEETWAVE_DEMO_ENABLED") == null
        && System.getProperty(DemoFleet.ENABLED) == null) {
      System.setProperty(DemoFleet.ENABLED, "true");
    }
    DemoIdentity.configure(System.getenv(), System.getProperties());
    DemoConsole.configure(System.getenv(), System.getProperties());
    serviceLogs = HeldServiceLogs.hold(!external.kafkaConfigured(), !external.postgresConfigured());
    EmbeddedServices embedded;
    try {
      embedded = EmbeddedServices.startMissing(external, System.getProperties());
    } catch (RuntimeException e) {
      writeHeldServiceLogs();
      throw e;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> awaitQuietly(stopped), "fleetwave-await-embedded-stop"));
    AtomicInteger exitCode = new AtomicInteger();
    StopSignals.install();
    try {
      // Quarkus logs a failed start only where no exit handler is given: this one must say it.
      Quarkus.run(
          DemoApplication.class,
          (code, failure) -> {
            exitCode.set(code);
            if (failure != null) {
              reportFailedStart(failure);
            }
          },
          args);
      System.err.println("fleetwave demo: application stopped");
    } finally {
      embedded.close();
      writeHeldServiceLogs();
      stopped.countDown();
    }
    System.exit(exitCode.get());
  }

  /**
   * Quarkus has configured logging: the embedded services' records held since they started go where
   * it sends everything, and later ones go there directly.
   */
  static void loggingConfigured() {
    HeldServiceLogs held = serviceLogs;
    if (held != null) {
      held.release();
    }
  }

  /** The application never ran: what the services logged goes to the file the console named. */
  private static void writeHeldServiceLogs() {
    HeldServiceLogs held = serviceLogs;
    if (held != null && !held.released()) {
      DemoConsole.logFile(System.getenv(), System.getProperties()).ifPresent(held::writeTo);
    }
  }

  private static void reportFailedStart(Throwable failure) {
    System.err.println(
        "fleetwave demo: the application did not start: " + ExceptionUtil.getRootCause(failure));
    failure.printStackTrace();
  }

  private static void awaitQuietly(CountDownLatch stopped) {
    try {
      stopped.await(STOP_BOUND_S, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
