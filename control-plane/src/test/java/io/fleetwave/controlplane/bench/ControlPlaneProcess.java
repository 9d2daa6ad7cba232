package io.fleetwave.controlplane.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The packaged control plane ({@code target/quarkus-app}) as a child process of the benchmark. */
final class ControlPlaneProcess implements AutoCloseable {
  private static final Duration READY_BOUND = Duration.ofSeconds(120);

  private final Process process;
  final int port;

  private ControlPlaneProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  static ControlPlaneProcess start(Path app, int port, Map<String, String> env, Path log)
      throws IOException, InterruptedException {
    return start(app, port, env, log, "1g");
  }

  /** As above with the child's maximum heap ({@code -Xmx}), e.g. "3g". */
  static ControlPlaneProcess start(
      Path app, int port, Map<String, String> env, Path log, String heap)
      throws IOException, InterruptedException {
    Path jar = app.resolve("quarkus-run.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar
              + " is missing: package the control plane first (./mvnw -pl control-plane -am package)");
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    java,
                    "--enable-native-access=ALL-UNNAMED",
                    "-Xmx" + heap,
                    "-jar",
                    jar.toString()))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().putAll(env);
    builder.environment().put("QUARKUS_HTTP_PORT", Integer.toString(port));
    ControlPlaneProcess started = new ControlPlaneProcess(builder.start(), port);
    started.awaitReady();
    return started;
  }

  private void awaitReady() throws InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    URI ready = URI.create("http://localhost:" + port + "/q/health/ready");
    long deadline = System.nanoTime() + READY_BOUND.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("control plane exited with " + process.exitValue());
      }
      try {
        HttpResponse<Void> response =
            http.send(
                HttpRequest.newBuilder(ready).timeout(Duration.ofSeconds(2)).build(),
                HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // Not listening yet.
      }
      Thread.sleep(200); // polling interval of a bounded readiness wait
    }
    throw new IllegalStateException("control plane not ready within " + READY_BOUND);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
