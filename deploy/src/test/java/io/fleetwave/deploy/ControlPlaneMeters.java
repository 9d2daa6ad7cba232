package io.fleetwave.deploy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The Prometheus metric names the control plane serves at /q/metrics, read from its code: every
 * Micrometer meter built in control-plane/src/main/java (name, type, base unit, histogram) is
 * registered in the same Micrometer Prometheus registry the control plane runs with, and the names
 * of its scrape are taken, so that suffixes ({@code _total}, {@code _seconds}, {@code _records},
 * {@code _bucket}) come out as the control plane's do.
 */
// Deprecated in Micrometer for its successor on the new Prometheus client, but it is the one
// quarkus-micrometer-registry-prometheus (3.33) serves /q/metrics with.
@SuppressWarnings("deprecation")
final class ControlPlaneMeters {
  static final Path SOURCES = Path.of("control-plane/src/main/java");

  private static final String TYPES = "Gauge|MultiGauge|Counter|Timer|DistributionSummary";
  private static final Pattern BUILT =
      Pattern.compile(
          "\\b(" + TYPES + ")\\.builder\\(\\s*\"([^\"]+)\"(.*?)\\.register\\(", Pattern.DOTALL);
  private static final Pattern ANY_BUILDER = Pattern.compile("\\b(" + TYPES + ")\\.builder\\(");
  private static final Pattern BASE_UNIT = Pattern.compile("\\.baseUnit\\(\\s*\"([^\"]+)\"\\s*\\)");

  private ControlPlaneMeters() {}

  /** The names a scrape of the control plane carries, from the sources under {@code root}. */
  static Set<String> prometheusNames(Path root) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (Stream<Path> files = Files.walk(root.resolve(SOURCES))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        register(file, Files.readString(file), registry);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + root.resolve(SOURCES), e);
    }
    Set<String> names = new TreeSet<>();
    for (String line : registry.scrape().lines().toList()) {
      if (!line.isBlank() && !line.startsWith("#")) {
        names.add(line.split("[{ ]", 2)[0]);
      }
    }
    if (names.isEmpty()) {
      throw new AssertionError("no Micrometer meter found under " + root.resolve(SOURCES));
    }
    return names;
  }

  private static void register(Path file, String source, PrometheusMeterRegistry registry) {
    Matcher built = BUILT.matcher(source);
    int found = 0;
    while (built.find()) {
      found++;
      String name = built.group(2);
      String chain = built.group(3);
      Matcher unit = BASE_UNIT.matcher(chain);
      String baseUnit = unit.find() ? unit.group(1) : null;
      boolean histogram = chain.contains(".publishPercentileHistogram()");
      switch (built.group(1)) {
        // A MultiGauge's rows are gauges of its name, one per tag set.
        case "Gauge", "MultiGauge" ->
            Gauge.builder(name, () -> 0).baseUnit(baseUnit).register(registry);
        case "Counter" -> Counter.builder(name).baseUnit(baseUnit).register(registry);
        case "Timer" ->
            Timer.builder(name).publishPercentileHistogram(histogram).register(registry);
        case "DistributionSummary" ->
            DistributionSummary.builder(name)
                .baseUnit(baseUnit)
                .publishPercentileHistogram(histogram)
                .register(registry);
        default -> throw new IllegalStateException(built.group(1));
      }
    }
    // A meter named by a constant or built another way would be missed: say so, not guess.
    long builders = ANY_BUILDER.matcher(source).results().count();
    if (builders != found) {
      throw new AssertionError(
          file
              + " builds "
              + builders
              + " meters, "
              + found
              + " of them with a literal name and .register(...): name the others literally");
    }
  }
}
