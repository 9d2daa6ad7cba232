package io.fleetwave.agent.hostclients;

import io.fleetwave.agent.host.HostFacts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.freedesktop.dbus.DBusPath;
import org.freedesktop.dbus.interfaces.DBusSigHandler;
import org.freedesktop.dbus.interfaces.Properties;

/**
 * Stops and starts the host services that hold GPUs (nvidia-persistenced, DCGM, fabric manager)
 * over systemd's D-Bus API, each call and each job wait bounded. Where the probe found no systemd
 * (Talos), nothing is attempted and the result carries a warning instead (seed 000): there is no
 * unit to stop, and nothing is ever written to the host.
 */
public final class HostGpuClients {
  public static final List<String> DEFAULT_UNITS =
      List.of(
          "nvidia-persistenced.service",
          "nvidia-dcgm.service",
          "dcgm-exporter.service",
          "nvidia-fabricmanager.service");

  private static final String SOCKET = "/run/dbus/system_bus_socket";

  private final HostFacts facts;
  private final List<String> units;
  private final Duration timeout;

  public HostGpuClients(HostFacts facts, List<String> units, Duration timeout) {
    this.facts = facts;
    this.units = List.copyOf(units);
    this.timeout = timeout;
  }

  /** Stops every configured unit that is active; returns the ones stopped (to start them later). */
  public ClientsResult stop() {
    if (!facts.os().systemd()) {
      return skipped("stopped", units);
    }
    try (SystemBus bus = SystemBus.connect(facts.resolve(SOCKET), timeout)) {
      List<String> stopped = new ArrayList<>();
      List<String> notRunning = new ArrayList<>();
      for (String unit : units) {
        String state = activeState(bus, unit);
        if (!state.equals("active") && !state.equals("activating") && !state.equals("reloading")) {
          notRunning.add(unit + " (" + state + ")");
          continue;
        }
        runJob(bus, unit, "stop");
        stopped.add(unit);
      }
      return new ClientsResult(stopped, notRunning, List.of());
    }
  }

  /** Starts the given units again (those {@link #stop()} stopped), in order. */
  public ClientsResult start(List<String> stoppedUnits) {
    if (!facts.os().systemd()) {
      return skipped("started", stoppedUnits);
    }
    try (SystemBus bus = SystemBus.connect(facts.resolve(SOCKET), timeout)) {
      for (String unit : stoppedUnits) {
        runJob(bus, unit, "start");
      }
      return new ClientsResult(stoppedUnits, List.of(), List.of());
    }
  }

  private ClientsResult skipped(String verb, List<String> which) {
    return new ClientsResult(
        List.of(),
        List.of(),
        List.of(
            "no systemd on this host ("
                + facts.reasons().getOrDefault("systemd", "systemd=false")
                + "): host GPU clients not "
                + verb
                + ": "
                + String.join(", ", which)));
  }

  private String activeState(SystemBus bus, String unit) {
    try {
      return bus.call(
          "GetUnit(" + unit + ")",
          () -> {
            SystemdManager manager = manager(bus);
            DBusPath path = manager.GetUnit(unit);
            Properties props =
                bus.connection()
                    .getRemoteObject(SystemdManager.BUS_NAME, path.getPath(), Properties.class);
            Object state = props.Get("org.freedesktop.systemd1.Unit", "ActiveState");
            return String.valueOf(state);
          });
    } catch (SystemBusCallException e) {
      if (e.errorName().endsWith(".NoSuchUnit")) {
        return "not loaded";
      }
      throw e;
    }
  }

  private void runJob(SystemBus bus, String unit, String verb) {
    Map<String, CompletableFuture<String>> jobs = new ConcurrentHashMap<>();
    DBusSigHandler<SystemdManager.JobRemoved> handler =
        signal ->
            jobs.computeIfAbsent(signal.job().getPath(), k -> new CompletableFuture<>())
                .complete(signal.result());
    bus.call(
        "subscribe to JobRemoved",
        () -> {
          bus.connection().addSigHandler(SystemdManager.JobRemoved.class, handler);
          manager(bus).Subscribe();
          return null;
        });
    try {
      DBusPath job =
          bus.call(
              verb + " " + unit,
              () ->
                  verb.equals("stop")
                      ? manager(bus).StopUnit(unit, "replace")
                      : manager(bus).StartUnit(unit, "replace"));
      String result =
          jobs.computeIfAbsent(job.getPath(), k -> new CompletableFuture<>())
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!result.equals("done")) {
        throw new HostClientException(
            verb + " " + unit + ": systemd job " + job.getPath() + " ended '" + result + "'");
      }
    } catch (TimeoutException e) {
      throw new HostClientException(
          verb
              + " "
              + unit
              + ": systemd did not finish the job within "
              + SystemBus.describe(timeout));
    } catch (ExecutionException e) {
      throw new HostClientException(verb + " " + unit + ": " + e.getCause().getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HostClientException(verb + " " + unit + ": interrupted");
    } finally {
      try {
        bus.call(
            "remove JobRemoved handler",
            () -> {
              bus.connection().removeSigHandler(SystemdManager.JobRemoved.class, handler);
              return null;
            });
      } catch (SystemBusUnavailableException ignored) {
        // The connection closes right after; the handler goes with it.
      }
    }
  }

  private static SystemdManager manager(SystemBus bus)
      throws org.freedesktop.dbus.exceptions.DBusException {
    return bus.connection()
        .getRemoteObject(SystemdManager.BUS_NAME, SystemdManager.OBJECT_PATH, SystemdManager.class);
  }
}
