package io.fleetwave.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.DriverProvider;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The receiving end of the control plane's webhook driver executor for a simulated fleet: each
 * signed POST ({@code {node, toVersion, osUpgrade, ...}}, signed as Standard Webhooks signs: HMAC
 * SHA-256 over {@code <webhook-id>.<webhook-timestamp>.<body>} with the {@code whsec_} secret) has
 * the named node install that driver ({@link SimulatedNode#installDriver(String, Duration)}), as a
 * fleet's own automation would on real hosts. A request it cannot verify is refused (401), as one
 * for a node it does not run (404) or a provider that cannot take the change (409).
 */
final class DriverWebhook implements AutoCloseable {
  private static final String PREFIX = "whsec_";
  // Standard Webhooks' recommended tolerance for the timestamp, either way.
  private static final Duration TOLERANCE = Duration.ofMinutes(5);
  private static final int MAX_BODY = 64 * 1024;

  private final HttpServer server;

  private DriverWebhook(HttpServer server) {
    this.server = server;
  }

  /**
   * Listens on the loopback {@code port} (0: any free one) for {@code fleet}'s driver changes.
   *
   * @throws IllegalArgumentException when {@code secret} is not a {@code whsec_} secret
   */
  static DriverWebhook start(
      int port, String secret, SimulatedFleet fleet, Duration applyDelay, Clock clock)
      throws IOException {
    byte[] key = decode(secret);
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    server.createContext("/", exchange -> handle(exchange, key, fleet, applyDelay, clock));
    server.start();
    return new DriverWebhook(server);
  }

  int port() {
    return server.getAddress().getPort();
  }

  private static byte[] decode(String secret) {
    String value = secret.strip();
    if (!value.startsWith(PREFIX)) {
      throw new IllegalArgumentException("the driver webhook's secret must start with " + PREFIX);
    }
    try {
      return Base64.getDecoder().decode(value.substring(PREFIX.length()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "the driver webhook's secret is not " + PREFIX + "<base64>: " + e.getMessage(), e);
    }
  }

  // The install's future is not awaited: as with a real executor, the engine learns the outcome
  // from the node itself (it registers the new driver after its reboot).
  @SuppressWarnings("FutureReturnValueIgnored")
  private static void handle(
      HttpExchange exchange, byte[] key, SimulatedFleet fleet, Duration applyDelay, Clock clock)
      throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("POST")) {
        answer(exchange, 405, "POST only");
        return;
      }
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readNBytes(MAX_BODY + 1);
      }
      if (body.length > MAX_BODY) {
        answer(exchange, 413, "a body past " + MAX_BODY + " bytes");
        return;
      }
      String refused = unverified(exchange, key, body, clock);
      if (refused != null) {
        answer(exchange, 401, refused);
        return;
      }
      JsonNode request = EventCodec.mapper().readTree(body);
      String name = request.path("node").asText();
      SimulatedNode node = fleet.node(name).orElse(null);
      if (node == null) {
        answer(exchange, 404, "no simulated node " + name);
        return;
      }
      boolean osImage = node.facts().driverProvider() == DriverProvider.OS_IMAGE;
      if (request.path("osUpgrade").asBoolean() != osImage) {
        answer(
            exchange,
            409,
            name + " gets its driver as " + node.facts().driverProvider().wireName());
        return;
      }
      try {
        node.installDriver(request.path("toVersion").asText(), applyDelay);
      } catch (IllegalStateException e) {
        answer(exchange, 409, e.getMessage());
        return;
      }
      answer(exchange, 202, "installing " + request.path("toVersion").asText() + " on " + name);
    }
  }

  /** Why the request's signature does not hold, or null when it does. */
  private static String unverified(HttpExchange exchange, byte[] key, byte[] body, Clock clock) {
    String id = exchange.getRequestHeaders().getFirst("webhook-id");
    String timestamp = exchange.getRequestHeaders().getFirst("webhook-timestamp");
    String signatures = exchange.getRequestHeaders().getFirst("webhook-signature");
    if (id == null || timestamp == null || signatures == null) {
      return "webhook-id, webhook-timestamp and webhook-signature are required";
    }
    long sent;
    try {
      sent = Long.parseLong(timestamp);
    } catch (NumberFormatException e) {
      return "webhook-timestamp is not whole seconds";
    }
    if (Math.abs(clock.instant().getEpochSecond() - sent) > TOLERANCE.toSeconds()) {
      return "webhook-timestamp is outside the tolerance of " + TOLERANCE;
    }
    byte[] expected;
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
      expected = mac.doFinal(body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available: " + e, e);
    }
    for (String signature : signatures.split(" ", -1)) {
      if (signature.startsWith("v1,")) {
        byte[] given;
        try {
          given = Base64.getDecoder().decode(signature.substring(3));
        } catch (IllegalArgumentException e) {
          continue;
        }
        if (MessageDigest.isEqual(expected, given)) {
          return null;
        }
      }
    }
    return "no webhook-signature matches the body";
  }

  private static void answer(HttpExchange exchange, int status, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
