package io.fleetwave.testsupport.processes;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Lowers the CPU priority of a test JVM whose module is off the suite's critical path, and so of
 * every thread and process its tests start after it: {@code -Dfleetwave.test.nice=N} (the root
 * pom's {@code fleetwave.test.nice}, 0 by default: nothing changes).
 *
 * <p>Maven starts a module only when every module it depends on has finished, so the suite's time
 * is that of the chain through the control plane's integration tests to the system tier and the
 * demo (docs/testing.md, "Suite time on two cores"). The node agent's, the simulator's and
 * fleetctl's tests depend on nothing after them and ran beside that chain at its priority: on two
 * cores they took CPU the chain then waited for. At a lower priority they take what the chain
 * leaves idle (its waits on brokers, databases and outages).
 *
 * <p>Linux gives every thread its own nice value, and a new thread or process takes its creator's:
 * every thread of this JVM is lowered at the launcher session's start, before any test runs.
 */
public final class ForkPriority implements LauncherSessionListener {
  private static final String PROPERTY = "fleetwave.test.nice";
  private static final int PRIO_PROCESS = 0;

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    int nice = Integer.getInteger(PROPERTY, 0);
    if (nice <= 0) {
      return;
    }
    try {
      MethodHandle setpriority = setpriority();
      for (int thread : threads()) {
        // A thread that ended since the listing fails with ESRCH: nothing to lower.
        int ignored = (int) setpriority.invokeExact(PRIO_PROCESS, thread, nice);
      }
    } catch (Throwable e) {
      // The tests run as they would without it; only the suite's packing is worse.
      System.err.println("fleetwave: could not lower this test JVM's priority: " + e);
    }
  }

  @SuppressWarnings("restricted") // setpriority(2) with ints only: no memory is touched
  private static MethodHandle setpriority() {
    Linker linker = Linker.nativeLinker();
    return linker.downcallHandle(
        linker.defaultLookup().find("setpriority").orElseThrow(),
        FunctionDescriptor.of(
            ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT));
  }

  /** This JVM's threads, as Linux numbers them. */
  private static List<Integer> threads() throws IOException {
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      return tasks.map(task -> Integer.parseInt(task.getFileName().toString())).toList();
    }
  }
}
