package io.fleetwave.controlplane.mig.store;

import io.fleetwave.controlplane.facts.FactsCaughtUp;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.jboss.logging.Logger;

/**
 * At start, an empty store (once the facts on fleet.control-facts are applied) gets NVIDIA's
 * default mig-parted file (bundled under {@code mig/}, see its README for source and licence), so
 * that the usual names (all-balanced, all-1g.10gb, ...) exist on a fresh install. A store that
 * holds any config is left as it is.
 */
public class MigConfigSeed {
  static final String RESOURCE = "mig/nvidia-config-default.yaml";
  static final String SOURCE = "seed: NVIDIA mig-parted config-default.yaml v0.15.0";
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Logger LOG = Logger.getLogger(MigConfigSeed.class);

  /**
   * After the facts already on fleet.control-facts are applied: on a database lost and recreated,
   * the imports the log holds (this seed's first one included) come back, and nothing is seeded
   * again over them.
   */
  void seed(@Observes StartupEvent start, MigConfigStore store, FactsCaughtUp facts) {
    try {
      facts.await(TIMEOUT);
      store
          .seedIfEmpty(bundledFile(), SOURCE)
          .await()
          .atMost(TIMEOUT)
          .ifPresent(
              seeded ->
                  LOG.infof(
                      "MIG config store was empty: seeded %d configs from %s",
                      seeded.imported().size(), RESOURCE));
    } catch (RuntimeException e) {
      // Kafka or PostgreSQL away at start: the control plane still starts (readiness says why);
      // the next start seeds an empty store.
      LOG.errorf("MIG config store not seeded from %s: %s", RESOURCE, e.getMessage());
    }
  }

  static String bundledFile() {
    try (InputStream in = MigConfigSeed.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            RESOURCE + " is missing from the control plane's classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }
}
