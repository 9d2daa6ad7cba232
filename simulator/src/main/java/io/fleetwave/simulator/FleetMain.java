package io.fleetwave.simulator;

import io.fleetwave.simulator.fleet.FleetFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a simulated fleet as its own process until it is stopped (SIGTERM / Ctrl-C), then stops
 * every agent in order.
 *
 * <pre>FleetMain --bootstrap HOST:PORT [--fleet FILE] [--heartbeat-seconds N]</pre>
 */
public final class FleetMain {
  private FleetMain() {}

  public static void main(String[] args) throws InterruptedException {
    String fleetFile = null;
    String bootstrap = null;
    Duration heartbeat = Duration.ofSeconds(10);
    try {
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--fleet" -> fleetFile = value(args, ++i, "--fleet");
          case "--bootstrap" -> bootstrap = value(args, ++i, "--bootstrap");
          case "--heartbeat-seconds" ->
              heartbeat =
                  Duration.ofSeconds(Long.parseLong(value(args, ++i, "--heartbeat-seconds")));
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
      if (bootstrap == null) {
        throw new IllegalArgumentException("--bootstrap HOST:PORT is required");
      }
      FleetFile fleet =
          fleetFile == null ? FleetFile.bundledDemo() : FleetFile.read(Path.of(fleetFile));
      SimulatedFleet running = SimulatedFleet.start(fleet, bootstrap, heartbeat);
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    running.close();
                    stopped.countDown();
                  },
                  "fleetwave-sim-shutdown"));
      System.out.println(
          "simulated fleet of " + running.nodes().size() + " nodes publishing to " + bootstrap);
      stopped.await();
    } catch (IllegalArgumentException e) {
      System.err.println("fleet: " + e.getMessage());
      System.err.println(
          "usage: FleetMain --bootstrap HOST:PORT [--fleet FILE] [--heartbeat-seconds N]");
      System.exit(2);
    }
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }
}
