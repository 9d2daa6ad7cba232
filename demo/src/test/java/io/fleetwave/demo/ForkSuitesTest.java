package io.fleetwave.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.platform.suite.api.SelectClasses;

/** The demo module's two fork suites run every IT of the module exactly once. */
class ForkSuitesTest {
  private static final Path TESTS = Path.of("src", "test", "java");

  @Test
  void everyItOfTheModuleIsInExactlyOneSuite() throws IOException {
    List<String> named =
        Stream.of(FleetProfilesItsSuite.class, OtherItsSuite.class)
            .flatMap(suite -> Stream.of(suite.getAnnotation(SelectClasses.class).names()))
            .toList();
    List<String> its = classNames().filter(name -> name.endsWith("IT")).toList();

    assertThat(named).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(its);
  }

  @Test
  void failsafeRunsOnlySuitesCheckedHere() throws IOException {
    // failsafe runs every **/*ItsSuite.java of the module (demo/pom.xml)
    assertThat(classNames().filter(name -> name.endsWith("ItsSuite")))
        .containsExactlyInAnyOrder(
            FleetProfilesItsSuite.class.getName(), OtherItsSuite.class.getName());
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
