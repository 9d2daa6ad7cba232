package io.fleetwave.agent.hostclients;

import java.io.Serial;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.freedesktop.dbus.DBusPath;
import org.freedesktop.dbus.connections.impl.DBusConnection;
import org.freedesktop.dbus.connections.impl.DBusConnectionBuilder;
import org.freedesktop.dbus.exceptions.DBusException;
import org.freedesktop.dbus.exceptions.DBusExecutionException;
import org.freedesktop.dbus.interfaces.Properties;
import org.freedesktop.dbus.types.UInt32;
import org.freedesktop.dbus.types.Variant;

/**
 * A stand-in for systemd on a private bus: owns org.freedesktop.systemd1, answers GetUnit,
 * StopUnit, StartUnit and Subscribe, and emits JobRemoved, through the agent's {@link
 * SystemdManager} declaration (dbus-java keeps one Java class per D-Bus interface name in a JVM).
 */
final class FakeSystemd implements AutoCloseable {

  public static final class NoSuchUnit extends DBusExecutionException {
    @Serial private static final long serialVersionUID = 1L;

    public NoSuchUnit(String message) {
      super(message);
    }

    // What SystemBus reads through the API dbus-java marks for removal (see SystemBus).
    @SuppressWarnings("removal")
    @Override
    public String getType() {
      return "org.freedesktop.systemd1.NoSuchUnit";
    }
  }

  private final DBusConnection connection;
  private final Map<String, String> states = new ConcurrentHashMap<>();
  private final Set<String> hanging = ConcurrentHashMap.newKeySet();
  private final List<String> calls = new CopyOnWriteArrayList<>();
  private final AtomicInteger jobs = new AtomicInteger();

  FakeSystemd(String address, Map<String, String> unitStates) throws DBusException {
    states.putAll(unitStates);
    connection = DBusConnectionBuilder.forAddress(address).withShared(false).build();
    connection.requestBusName("org.freedesktop.systemd1");
    connection.exportObject("/org/freedesktop/systemd1", new Manager());
    for (String unit : unitStates.keySet()) {
      connection.exportObject(unitPath(unit), new Unit(unit));
    }
  }

  /** Jobs for this unit are accepted and never finish. */
  void hangJobsOf(String unit) {
    hanging.add(unit);
  }

  List<String> calls() {
    return List.copyOf(calls);
  }

  String state(String unit) {
    return states.get(unit);
  }

  private static String unitPath(String unit) {
    return "/org/freedesktop/systemd1/unit/" + unit.replace("-", "_2d").replace(".", "_2e");
  }

  @Override
  public void close() {
    connection.disconnect();
  }

  private final class Manager implements SystemdManager {
    @Override
    public DBusPath StartUnit(String name, String mode) {
      return job(name, "start", "active");
    }

    @Override
    public DBusPath StopUnit(String name, String mode) {
      return job(name, "stop", "inactive");
    }

    @Override
    public DBusPath GetUnit(String name) {
      calls.add("GetUnit " + name);
      if (!states.containsKey(name)) {
        throw new NoSuchUnit("Unit " + name + " not loaded.");
      }
      return new DBusPath(unitPath(name));
    }

    @Override
    public void Subscribe() {}

    @Override
    public void Reboot() {
      calls.add("reboot");
    }

    @Override
    public String getObjectPath() {
      return "/org/freedesktop/systemd1";
    }

    private DBusPath job(String unit, String verb, String newState) {
      calls.add(verb + " " + unit);
      int id = jobs.incrementAndGet();
      DBusPath path = new DBusPath("/org/freedesktop/systemd1/job/" + id);
      if (!hanging.contains(unit)) {
        states.put(unit, newState);
        // systemd sends JobRemoved after the reply; a separate thread keeps that order likely, and
        // the agent copes with either order.
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    connection.sendMessage(
                        new SystemdManager.JobRemoved(
                            "/org/freedesktop/systemd1", new UInt32(id), path, unit, "done"));
                  } catch (DBusException e) {
                    throw new IllegalStateException(e);
                  }
                });
      }
      return path;
    }
  }

  private final class Unit implements Properties {
    private final String unit;

    Unit(String unit) {
      this.unit = unit;
    }

    @Override
    // unchecked, TypeParameterUnusedInFormals: dbus-java's Properties.Get declares this signature.
    @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
    public <A> A Get(String iface, String property) {
      if (!property.equals("ActiveState")) {
        throw new DBusExecutionException("no property " + property);
      }
      return (A) states.get(unit);
    }

    @Override
    public <A> void Set(String iface, String property, A value) {
      throw new DBusExecutionException("read-only");
    }

    @Override
    public Map<String, Variant<?>> GetAll(String iface) {
      return Map.of("ActiveState", new Variant<>(states.get(unit)));
    }

    @Override
    public String getObjectPath() {
      return unitPath(unit);
    }
  }
}
