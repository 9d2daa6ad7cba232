package io.fleetwave.agent.hostclients;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.freedesktop.dbus.connections.impl.DBusConnection;
import org.freedesktop.dbus.connections.impl.DBusConnectionBuilder;
import org.freedesktop.dbus.interfaces.DBus;

/**
 * A connection to the host's system bus where every step has a bound.
 *
 * <p>Why dbus-java (com.github.hypfvieh, native unix-socket transport): it is the maintained pure
 * Java D-Bus implementation, speaks the wire protocol, SASL and signals, and its native transport
 * uses the JDK's own {@code UnixDomainSocketAddress} channels, so no JNI/JNR is needed. Its connect
 * and SASL handshake have no bound of their own (a socket that accepts and never answers blocks the
 * handshake forever, seed 000), so every call here runs on its own daemon thread and is abandoned
 * with {@code cancel(true)} after the bound: the interrupt closes the blocked socket channel, which
 * ends the read.
 */
public final class SystemBus implements AutoCloseable {
  private static final String DBUS_NAME = "org.freedesktop.DBus";

  private final DBusConnection connection;
  private final Duration timeout;
  private final ExecutorService calls;

  private SystemBus(DBusConnection connection, Duration timeout, ExecutorService calls) {
    this.connection = connection;
    this.timeout = timeout;
    this.calls = calls;
  }

  /**
   * Connects to the bus socket, authenticates and says Hello, all within {@code timeout}.
   *
   * @throws SystemBusUnavailableException naming the socket and the bound when it does not answer
   */
  public static SystemBus connect(Path socket, Duration timeout) {
    ExecutorService calls =
        Executors.newThreadPerTaskExecutor(
            Thread.ofPlatform().daemon().name("fleetwave-dbus-", 0).factory());
    try {
      DBusConnection connection =
          bounded(
              calls,
              timeout,
              "connect to " + socket,
              () ->
                  DBusConnectionBuilder.forAddress("unix:path=" + socket)
                      .withShared(false)
                      .build());
      return new SystemBus(connection, timeout, calls);
    } catch (RuntimeException e) {
      calls.shutdownNow();
      throw e;
    }
  }

  /** The bus's id (org.freedesktop.DBus.GetId): the trivial call that proves the bus answers. */
  public String busId() {
    return call(
        "GetId",
        () -> connection.getRemoteObject(DBUS_NAME, "/org/freedesktop/DBus", DBus.class).GetId());
  }

  /** Runs one call on the connection within the bound. */
  public <T> T call(String what, Callable<T> call) {
    return bounded(calls, timeout, what, call);
  }

  public DBusConnection connection() {
    return connection;
  }

  public Duration timeout() {
    return timeout;
  }

  @Override
  public void close() {
    try {
      bounded(
          calls,
          timeout,
          "disconnect",
          () -> {
            connection.disconnect();
            return null;
          });
    } catch (RuntimeException ignored) {
      // Closing a dead bus is not an error worth reporting: the socket goes with the threads.
    } finally {
      calls.shutdownNow();
    }
  }

  /** "3s" for whole seconds, else milliseconds: the form used in every bus message. */
  public static String describe(Duration timeout) {
    return timeout.toMillisPart() == 0 && timeout.toSeconds() > 0
        ? timeout.toSeconds() + "s"
        : timeout.toMillis() + "ms";
  }

  private static <T> T bounded(
      ExecutorService calls, Duration timeout, String what, Callable<T> call) {
    Future<T> future = calls.submit(call);
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new SystemBusUnavailableException(
          "systemd unreachable: no reply on the system bus within "
              + describe(timeout)
              + " ("
              + what
              + ")",
          e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof org.freedesktop.dbus.exceptions.DBusExecutionException remote) {
        throw new SystemBusCallException(what, errorName(remote), remote.getMessage(), remote);
      }
      throw new SystemBusUnavailableException(
          "systemd unreachable: " + what + " failed: " + cause.getMessage(), cause);
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw new SystemBusUnavailableException("interrupted during " + what, e);
    }
  }

  // dbus-java 5.1 marks getType() for removal and offers nothing else that carries the D-Bus
  // error name (org.freedesktop.systemd1.NoSuchUnit...) of a remote failure.
  @SuppressWarnings("removal")
  private static String errorName(org.freedesktop.dbus.exceptions.DBusExecutionException remote) {
    return remote.getType();
  }
}
