package io.fleetwave.agent.hostclients;

import org.freedesktop.dbus.DBusPath;
import org.freedesktop.dbus.annotations.DBusInterfaceName;
import org.freedesktop.dbus.exceptions.DBusException;
import org.freedesktop.dbus.interfaces.DBusInterface;
import org.freedesktop.dbus.messages.DBusSignal;
import org.freedesktop.dbus.types.UInt32;

/** The part of systemd's org.freedesktop.systemd1.Manager D-Bus interface the agent uses. */
@DBusInterfaceName("org.freedesktop.systemd1.Manager")
public interface SystemdManager extends DBusInterface {
  String BUS_NAME = "org.freedesktop.systemd1";
  String OBJECT_PATH = "/org/freedesktop/systemd1";

  DBusPath StartUnit(String name, String mode);

  DBusPath StopUnit(String name, String mode);

  /** The unit's object path; fails with org.freedesktop.systemd1.NoSuchUnit when not loaded. */
  DBusPath GetUnit(String name);

  /** Asks systemd to emit job signals. */
  void Subscribe();

  /** Starts an orderly reboot of the host (systemctl reboot). */
  void Reboot();

  /**
   * Sent when a job finishes; {@code result} is "done" on success. The constructor takes the
   * signal's every argument, as dbus-java builds it from them; only the job and its result are
   * kept, all the agent reads.
   */
  class JobRemoved extends DBusSignal {
    private final DBusPath job;
    private final String result;

    public JobRemoved(String path, UInt32 id, DBusPath job, String unit, String result)
        throws DBusException {
      super(path, id, job, unit, result);
      this.job = job;
      this.result = result;
    }

    public DBusPath job() {
      return job;
    }

    public String result() {
      return result;
    }
  }
}
