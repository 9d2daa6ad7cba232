package io.fleetwave.testsupport.suites;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.platform.suite.api.SelectClasses;

/**
 * What a module's fork suites (JUnit suites that name their classes, one per failsafe fork) and its
 * test sources hold, for the module's {@code ForkSuitesTest} to compare: every IT in exactly one
 * suite, and no suite failsafe would run unchecked.
 */
public final class ForkSuites {
  private static final Path TESTS = Path.of("src", "test", "java");

  private ForkSuites() {}

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
