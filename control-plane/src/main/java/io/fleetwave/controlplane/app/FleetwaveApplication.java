package io.fleetwave.controlplane.app;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import java.net.URI;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

/** Runs once Quarkus has started (HTTP included): announces the URL and waits for shutdown. */
public class FleetwaveApplication implements QuarkusApplication {
  private static final Logger LOG = Logger.getLogger(FleetwaveApplication.class);

  @Override
  public int run(String... args) throws Exception {
    var config = ConfigProvider.getConfig();
    String host = config.getOptionalValue("quarkus.http.host", String.class).orElse("localhost");
    int port = config.getOptionalValue("quarkus.http.port", Integer.class).orElse(8080);
    String shown = host.equals("0.0.0.0") ? "localhost" : host;
    URI base = URI.create("http://" + shown + ":" + port + "/");
    awaitReady(base);
    LOG.infof("Fleetwave is ready: %s", base);
    Quarkus.waitForExit();
    return 0;
  }

  /**
   * What must be true before the ready line (nothing more than a started server here; the demo also
   * waits for its fleet to be visible in the API). Must be bounded.
   */
  protected void awaitReady(URI base) throws Exception {}
}
