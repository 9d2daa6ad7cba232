package io.fleetwave.testsupport.network;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * HTTP services stood in for by the JDK's HttpServer (the API fleetctl calls, an OIDC provider): a
 * server on the loopback address, and the JSON answers its handlers send.
 */
public final class StandInHttp {
  private StandInHttp() {}

  /**
   * A server on the loopback address and a free port, not started: add its contexts, then start.
   */
  public static HttpServer loopbackServer() throws IOException {
    return HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
  }

  /** The base URL of a {@link #loopbackServer()}. */
  public static String url(HttpServer server) {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /**
   * Answers {@code status} with {@code json}, typed application/problem+json from 400 up as the
   * control plane types its problems, else application/json.
   */
  public static void sendJson(HttpExchange exchange, int status, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    exchange
        .getResponseHeaders()
        .set("Content-Type", status >= 400 ? "application/problem+json" : "application/json");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }
}
