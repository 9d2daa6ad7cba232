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
 * (serial in the suite) and the code cache and metaspace sizes that keep it from full collections
 * under C1 are passed on for the same reason.
 */
public final class JavaCommand {
  private static final List<String> PASSED_ON =
      List.of(
          "-XX:TieredStopAtLevel=",
          "-XX:+UseSerialGC",
          "-XX:ReservedCodeCacheSize=",
          "-XX:MetaspaceSize=");

  private static final List<String> INHERITED =
      ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
          .filter(argument -> PASSED_ON.stream().anyMatch(argument::startsWith))
          .toList();

  private JavaCommand() {}

  public static List<String> of(String... arguments) {
    return of(List.of(arguments));
  }

  public static List<String> of(List<String> arguments) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(INHERITED);
    command.addAll(arguments);
    return command;
  }
}
