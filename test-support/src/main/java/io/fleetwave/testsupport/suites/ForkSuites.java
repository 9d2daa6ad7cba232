package io.fleetwave.testsupport.suites;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.platform.suite.api.SelectClasses;

/**
 * What a module's fork suites (JUnit suites that name their classes, one per failsafe fork) and its
 * test sources hold, for the module's {@code ForkSuitesTest} to compare: every IT in exactly one
 * suite, and no suite failsafe would run unchecked.
 */
public final class ForkSuites {
  private static final Path TESTS = Path.of("src", "test", "java");

  private ForkSuites() {}

  /**
   * Fails unless the suites split the module's ITs: every IT named by exactly one suite, and the
   * suites are all the module's {@code *ItsSuite} classes (failsafe runs each of those, so one left
   * out here would run ITs no check sees).
   */
  public static void assertSplit(List<Class<?>> suites) {
    Assertions.assertEquals(
        sorted(sources("IT")), sorted(named(suites)), "the ITs each suite names, all together");
    Assertions.assertEquals(
        sorted(sources("ItsSuite")),
        sorted(suites.stream().map(Class::getName).toList()),
        "the fork suites failsafe runs");
  }

  private static List<String> sorted(List<String> names) {
    return names.stream().sorted().toList();
  }

  /** The classes the suites name ({@code @SelectClasses(names = ...)}), duplicates kept. */
  public static List<String> named(List<Class<?>> suites) {
    return suites.stream()
        .flatMap(suite -> Stream.of(suite.getAnnotation(SelectClasses.class).names()))
        .toList();
  }

  /**
   * The full names of the module's test classes (its {@code src/test/java}, the working directory
   * being the module's) whose name ends with {@code suffix}.
   */
  public static List<String> sources(String suffix) {
    try (Stream<Path> files = Files.walk(TESTS)) {
      return files
          .map(path -> TESTS.relativize(path).toString())
          .filter(name -> name.endsWith(suffix + ".java"))
          .map(name -> name.substring(0, name.length() - ".java".length()).replace('/', '.'))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the test sources under " + TESTS, e);
    }
  }
}
