package io.fleetwave.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The Fleetwave REST API over the JDK's HttpClient. Every call is bounded: a connect timeout and a
 * request timeout. An error status becomes an {@link ApiException} (problem+json read when
 * present); a server that cannot be reached or does not answer in time an {@link
 * UnreachableException} naming it.
 */
public final class ApiClient {
  private final URI server;
  private final String token;
  private final Duration requestTimeout;
  private final HttpClient http;
  private final ObjectMapper json;

  public ApiClient(
      URI server,
      String token,
      Duration connectTimeout,
      Duration requestTimeout,
      ObjectMapper json) {
    String base = server.toString();
    this.server = URI.create(base.endsWith("/") ? base.substring(0, base.length() - 1) : base);
    this.token = token == null || token.isBlank() ? null : token.strip();
    this.requestTimeout = requestTimeout;
    this.json = json;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(connectTimeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  public URI server() {
    return server;
  }

  /** A response: status and body (JSON, or a missing node for an empty body). */
  public record Answer(int status, JsonNode body) {}

  public JsonNode get(String path) {
    return send("GET", path, null, null, "application/json").body();
  }

  public String getText(String path, String accept) {
    return sendRaw("GET", path, null, null, accept).body();
  }

  public Answer post(String path, JsonNode body) {
    return send("POST", path, body == null ? null : body.toString(), "application/json", null);
  }

  public Answer post(String path, String body, String contentType) {
    return send("POST", path, body, contentType, null);
  }

  public Answer put(String path, JsonNode body) {
    return send("PUT", path, body.toString(), "application/json", null);
  }

  /** {@code ?a=1&b=2} of the non-null values, encoded; empty when there are none. */
  public static String query(Map<String, ?> params) {
    Map<String, Object> present = new LinkedHashMap<>();
    params.forEach(
        (k, v) -> {
          if (v != null) {
            present.put(k, v);
          }
        });
    if (present.isEmpty()) {
      return "";
    }
    return present.entrySet().stream()
        .map(e -> encode(e.getKey()) + "=" + encode(e.getValue().toString()))
        .collect(Collectors.joining("&", "?", ""));
  }

  public static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private Answer send(
      String method, String path, String body, String contentType, String acceptOverride) {
    HttpResponse<String> response =
        sendRaw(
            method,
            path,
            body,
            contentType,
            acceptOverride == null ? "application/json" : acceptOverride);
    String text = response.body();
    JsonNode parsed;
    if (text == null || text.isBlank()) {
      parsed = MissingNode.getInstance();
    } else {
      try {
        parsed = json.readTree(text);
      } catch (IOException e) {
        throw new ApiException(
            response.statusCode(),
            "the server at "
                + server
                + " answered "
                + response.statusCode()
                + " with a body that is not JSON (is it a Fleetwave control plane?)",
            MissingNode.getInstance());
      }
    }
    return new Answer(response.statusCode(), parsed);
  }

  private HttpResponse<String> sendRaw(
      String method, String path, String body, String contentType, String accept) {
    URI uri = URI.create(server + path);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(requestTimeout)
            .header("Accept", accept + ", application/problem+json")
            .header("User-Agent", "fleetctl");
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (body != null) {
      request.header("Content-Type", contentType);
      request.method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (HttpConnectTimeoutException e) {
      throw unreachable("no connection within " + seconds(http.connectTimeout().orElseThrow()), e);
    } catch (HttpTimeoutException e) {
      throw unreachable(
          "no answer to " + method + " " + path + " within " + seconds(requestTimeout), e);
    } catch (ConnectException e) {
      throw unreachable("connection refused", e);
    } catch (IOException e) {
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      if (root instanceof UnknownHostException) {
        throw unreachable("unknown host " + uri.getHost(), e);
      }
      throw unreachable(
          root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unreachable("interrupted", e);
    }
    if (response.statusCode() >= 400) {
      throw error(method, path, response);
    }
    return response;
  }

  private UnreachableException unreachable(String why, Throwable cause) {
    return new UnreachableException(
        "cannot reach the Fleetwave API at "
            + server
            + ": "
            + why
            + " (set --server or FLEETWAVE_URL)",
        cause);
  }

  private ApiException error(String method, String path, HttpResponse<String> response) {
    int status = response.statusCode();
    JsonNode problem = MissingNode.getInstance();
    try {
      if (response.body() != null && !response.body().isBlank()) {
        problem = json.readTree(response.body());
      }
    } catch (IOException notJson) {
      // Not a problem body: the status alone.
    }
    StringBuilder line = new StringBuilder().append(status);
    String title = problem.path("title").asText("");
    String detail = problem.path("detail").asText("");
    if (!title.isEmpty()) {
      line.append(' ').append(title);
    }
    if (!detail.isEmpty()) {
      line.append(": ").append(detail);
    }
    if (title.isEmpty() && detail.isEmpty()) {
      line.append(" from ").append(method).append(' ').append(server).append(path);
    }
    if (status == 401 || status == 403) {
      line.append(" (check --token or FLEETWAVE_TOKEN)");
    }
    return new ApiException(status, line.toString(), problem);
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}
