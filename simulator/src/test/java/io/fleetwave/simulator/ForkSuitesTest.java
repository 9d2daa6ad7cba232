package io.fleetwave.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.platform.suite.api.SelectClasses;

/** The simulator module's three fork suites run every IT of the module exactly once. */
class ForkSuitesTest {
  private static final Path TESTS = Path.of("src", "test", "java");
  private static final List<Class<?>> SUITES =
      List.of(AgentOutageItsSuite.class, SpecFollowingItsSuite.class, FleetItsSuite.class);

  @Test
  void everyItOfTheModuleIsInExactlyOneSuite() throws IOException {
    List<String> named =
        SUITES.stream()
            .flatMap(suite -> Stream.of(suite.getAnnotation(SelectClasses.class).names()))
            .toList();
    List<String> its = classNames().filter(name -> name.endsWith("IT")).toList();

    assertThat(named).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(its);
  }

  @Test
  void failsafeRunsOnlySuitesCheckedHere() throws IOException {
    // failsafe runs every **/*ItsSuite.java of the module (simulator/pom.xml)
    assertThat(classNames().filter(name -> name.endsWith("ItsSuite")))
        .containsExactlyInAnyOrderElementsOf(SUITES.stream().map(Class::getName).toList());
  }

  private static Stream<String> classNames() throws IOException {
    try (Stream<Path> files = Files.walk(TESTS)) {
      return files
          .map(path -> TESTS.relativize(path).toString())
          .filter(name -> name.endsWith(".java"))
          .map(name -> name.substring(0, name.length() - ".java".length()).replace('/', '.'))
          .toList()
          .stream();
    }
  }
}
