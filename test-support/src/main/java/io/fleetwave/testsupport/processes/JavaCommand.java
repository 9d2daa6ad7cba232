package io.fleetwave.testsupport.processes;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a child JVM that a test starts (a packaged control plane, a broker, a fleet,
 * an agent): the java of the JVM running the test, that JVM's choice of JIT compilers, then the
 * arguments.
 *
 * <p>Why the JIT choice is passed on: the test JVMs compile with C1 only (the root pom's {@code
 * argLine}; docs/testing.md "Suite time on two cores"), because on two cores C2's compiler threads
 * take the CPU the tests need and little test code runs long enough to repay them. The processes a
 * test starts live as briefly as the test, so they follow its choice; a bench, whose JVM keeps C2,
 * passes C2 on. What a process does does not depend on how its code is compiled. The collector
 * (serial in the suite) is passed on for the same reason.
 */
public final class JavaCommand {
  private static final String JIT_FLAG = "-XX:TieredStopAtLevel=";
  private static final String SERIAL_COLLECTOR = "-XX:+UseSerialGC";

  private static final List<String> JIT =
      ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
          .filter(argument -> argument.startsWith(JIT_FLAG) || argument.equals(SERIAL_COLLECTOR))
          .toList();

  private JavaCommand() {}

  public static List<String> of(String... arguments) {
    return of(List.of(arguments));
  }

  public static List<String> of(List<String> arguments) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JIT);
    command.addAll(arguments);
    return command;
  }
}
