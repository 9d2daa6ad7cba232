package io.fleetwave.demo;

import io.quarkus.runtime.Quarkus;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Ctrl-C (SIGINT), SIGTERM and SIGHUP stop the demo in order: the application first, then the
 * embedded Kafka broker and PostgreSQL it uses ({@link DemoMain}), and only then the JVM. Left to
 * the JVM, a signal starts every shutdown hook at once, zonky's PostgreSQL among them (registered
 * by its start, not removable): the database stopped under the running application, whose pool and
 * consumers then logged thousands of lines of "Pool closed" and refused connections.
 *
 * <p>A second signal while the demo stops exits at once, with status 1 (the JVM's shutdown hooks
 * still stop the services).
 *
 * <p>{@code sun.misc.Signal} (module jdk.unsupported, exported) is the JDK's only API for signals;
 * it is called reflectively because javac's "internal proprietary API" warning on it cannot be
 * suppressed, and the build fails on every warning.
 */
final class StopSignals {
  private static final List<String> SIGNALS = List.of("INT", "TERM", "HUP");
  private static final AtomicBoolean requested = new AtomicBoolean();

  private StopSignals() {}

  /** Whether a stop signal came: the start re-asks for the exit Quarkus forgets when it starts. */
  static boolean requested() {
    return requested.get();
  }

  /**
   * From now on the signals stop the application (Quarkus' main loop returns) instead of the JVM.
   */
  // A proxy's equals is identity: asking the proxy itself would call this handler again.
  @SuppressWarnings("ReferenceEquality")
  static void install() {
    try {
      Class<?> signal = Class.forName("sun.misc.Signal");
      Class<?> handler = Class.forName("sun.misc.SignalHandler");
      Method handle = signal.getMethod("handle", signal, handler);
      Object onSignal =
          Proxy.newProxyInstance(
              StopSignals.class.getClassLoader(),
              new Class<?>[] {handler},
              (proxy, method, args) -> {
                if (method.getName().equals("handle")) {
                  received();
                  return null;
                }
                return switch (method.getName()) {
                  case "hashCode" -> System.identityHashCode(proxy);
                  case "equals" -> proxy == args[0];
                  default -> "fleetwave demo stop signals";
                };
              });
      for (String name : SIGNALS) {
        handle.invoke(null, signal.getConstructor(String.class).newInstance(name), onSignal);
      }
    } catch (ReflectiveOperationException e) {
      Throwable cause = e instanceof InvocationTargetException target ? target.getCause() : e;
      // Still a working demo: a signal then stops it the JVM's way, services and application at
      // once.
      System.err.println(
          "fleetwave demo: cannot handle stop signals ("
              + cause
              + "); Ctrl-C will stop the embedded services alongside the application");
    }
  }

  private static void received() {
    if (requested.getAndSet(true)) {
      System.err.println("fleetwave demo: stopping now, without waiting for the application");
      System.exit(1);
    }
    System.err.println("fleetwave demo: stopping (the application, then Kafka and PostgreSQL)");
    Quarkus.asyncExit();
  }
}
