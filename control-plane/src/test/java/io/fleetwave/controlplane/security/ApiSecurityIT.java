package io.fleetwave.controlplane.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.controlplane.api.NodeEnrolmentResource;
import io.fleetwave.controlplane.fixtures.ApiTokens;
import io.fleetwave.events.codec.EventCodec;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Who may call what, for every operation of the OpenAPI document (enumerated here, so a new
 * endpoint is covered the day it appears): 401 without a token, 403 for a viewer on every change,
 * admin-only operations refused to an operator, and each accepted with its role. The control plane
 * runs with security exactly as production configures it; only the key the tokens are checked with
 * is the tests' stand-in identity's instead of a provider's.
 */
@QuarkusTest
class ApiSecurityIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final Duration CALL_BOUND = Duration.ofSeconds(30);
  private static final Pattern PATH_PARAMETER = Pattern.compile("\\{([^}:]+)[^}]*}");

  /**
   * Operations only an admin may call: MIG config import, the projection rebuild, re-signing the
   * specs, join tokens, revoking a node and re-admitting it.
   */
  private static final Set<String> ADMIN_ONLY =
      Set.of(
          "POST /api/v1/mig-configs",
          "POST /api/v1/admin/projection/rebuild",
          "POST /api/v1/join-tokens",
          "DELETE /api/v1/nodes/{name}/enrolment",
          "POST /api/v1/nodes/{name}/enrolment/readmission",
          "POST /api/v1/admin/specs/re-sign");

  @TestHTTPResource("/")
  URI base;

  /**
   * One operation of the API: method, path template and the body type it consumes, if any; {@code
   * nodeCredential} for an operation a node authenticates with its bootstrap credential instead of
   * a bearer token (marked {@link NodeEnrolmentResource#NODE_CREDENTIAL} in the document).
   */
  record Operation(String method, String path, String contentType, boolean nodeCredential) {
    Operation(String method, String path, String contentType) {
      this(method, path, contentType, false);
    }

    String key() {
      return method + " " + path;
    }

    boolean changesState() {
      return !method.equals("GET");
    }

    String role() {
      return !changesState() ? "viewer" : ADMIN_ONLY.contains(key()) ? "admin" : "operator";
    }
  }

  @Test
  void everyOperationNeedsATokenAndItsRole() throws Exception {
    List<Operation> operations = operations();
    assertThat(operations)
        .as("the OpenAPI document lists the API")
        .extracting(Operation::key)
        .contains(
            "GET /api/v1/nodes",
            "PUT /api/v1/nodes/{name}/spec",
            "POST /api/v1/rollouts/{id}/{action}",
            "POST /api/v1/mig-configs",
            "POST /api/v1/admin/projection/rebuild",
            "POST /api/v1/join-tokens",
            "DELETE /api/v1/nodes/{name}/enrolment")
        .containsAll(ADMIN_ONLY);
    assertThat(operations)
        .filteredOn(Operation::nodeCredential)
        .extracting(Operation::key)
        .containsExactly("POST /api/v1/nodes/{name}/enrolment");
    for (Operation operation : operations) {
      if (operation.nodeCredential()) {
        // No bearer token enrolls a node, whatever its roles: only a bootstrap credential does.
        for (String token :
            java.util.Arrays.asList(
                null, ApiTokens.viewer(), ApiTokens.operator(), ApiTokens.admin())) {
          HttpResponse<String> refused = call(operation, token);
          assertThat(refused.statusCode())
              .as(operation.key() + " without a node credential: " + refused.body())
              .isEqualTo(401);
          assertProblem(refused, operation.key());
        }
        continue;
      }
      HttpResponse<String> anonymous = call(operation, null);
      assertThat(anonymous.statusCode()).as(operation.key() + " without a token").isEqualTo(401);
      assertProblem(anonymous, operation.key());
      assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");

      if (operation.changesState()) {
        HttpResponse<String> viewer = call(operation, ApiTokens.viewer());
        assertThat(viewer.statusCode()).as(operation.key() + " as viewer").isEqualTo(403);
        assertProblem(viewer, operation.key());
      }
      if (operation.role().equals("admin")) {
        HttpResponse<String> operator = call(operation, ApiTokens.operator());
        assertThat(operator.statusCode()).as(operation.key() + " as operator").isEqualTo(403);
      }
      HttpResponse<String> allowed = call(operation, ApiTokens.of(operation.role()));
      assertThat(allowed.statusCode())
          .as(operation.key() + " as " + operation.role() + ": " + allowed.body())
          .isNotIn(401, 403)
          .isLessThan(500);
    }
  }

  @Test
  void everyChangeLeavesAnAuditEntryWithItsActorAndOutcome() throws Exception {
    Instant since = Instant.now().minusMillis(1);
    Map<String, Integer> answered = new LinkedHashMap<>();
    // An enrolment has no token subject to audit: the node_keys row records how it enrolled.
    for (Operation change :
        operations().stream()
            .filter(Operation::changesState)
            .filter(operation -> !operation.nodeCredential())
            .toList()) {
      answered.put(change.key(), call(change, ApiTokens.of(change.role())).statusCode());
    }
    Operation reset =
        new Operation("POST", "/api/v1/nodes/{name}/actions/reset-gpu", "application/json");
    int refused = call(reset, ApiTokens.viewer()).statusCode();
    assertThat(refused).isEqualTo(403);

    for (String role : List.of("operator", "admin")) {
      JsonNode page = audit("actor=test-" + role + "&since=" + since + "&size=500");
      for (Map.Entry<String, Integer> change : answered.entrySet()) {
        Operation operation = operationOf(change.getKey());
        if (!operation.role().equals(role)) {
          continue;
        }
        assertThat(page.path("items"))
            .as(change.getKey() + " by test-" + role)
            .anySatisfy(
                entry -> {
                  assertThat(entry.path("actor").asText()).isEqualTo("test-" + role);
                  assertThat(entry.path("action").asText()).isEqualTo(change.getKey());
                  assertThat(entry.path("status").asInt()).isEqualTo(change.getValue());
                  assertThat(entry.path("outcome").asText())
                      .startsWith(change.getValue() < 400 ? "accepted" : "refused");
                  assertThat(Instant.parse(entry.path("at").asText())).isAfterOrEqualTo(since);
                });
      }
      assertThat(page.path("items"))
          .allSatisfy(entry -> assertThat(entry.path("actor").asText()).isEqualTo("test-" + role));
    }
    JsonNode viewer = audit("actor=test-viewer&since=" + since);
    assertThat(viewer.path("total").asLong()).isEqualTo(1);
    assertThat(viewer.at("/items/0/action").asText()).isEqualTo(reset.key());
    assertThat(viewer.at("/items/0/outcome").asText()).startsWith("refused (403)");

    assertThat(audit("since=" + Instant.now().plusSeconds(3600)).path("total").asLong())
        .as("nothing is newer than an hour from now")
        .isZero();
    HttpResponse<String> badSince =
        call(new Operation("GET", "/api/v1/audit?since=yesterday", null), ApiTokens.viewer());
    assertThat(badSince.statusCode()).isEqualTo(400);
  }

  private JsonNode audit(String query) throws Exception {
    HttpResponse<String> response =
        call(new Operation("GET", "/api/v1/audit?" + query, null), ApiTokens.viewer());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return EventCodec.mapper().readTree(response.body());
  }

  private static Operation operationOf(String key) {
    int space = key.indexOf(' ');
    return new Operation(key.substring(0, space), key.substring(space + 1), null);
  }

  @Test
  void noChangeAcceptsAContentTypeACrossSitePageCouldSend() throws Exception {
    List<Operation> changes = operations().stream().filter(Operation::changesState).toList();
    assertThat(changes).isNotEmpty();
    for (Operation change : changes) {
      for (String type :
          List.of(
              "text/plain",
              "text/plain; charset=utf-8",
              "application/x-www-form-urlencoded",
              "multipart/form-data; boundary=x")) {
        Operation asSimpleRequest =
            new Operation(change.method(), change.path(), type, change.nodeCredential());
        HttpResponse<String> response = call(asSimpleRequest, ApiTokens.admin());
        assertThat(response.statusCode()).as(change.key() + " as " + type).isEqualTo(415);
        assertProblem(response, change.key() + " as " + type);
      }
    }
  }

  @Test
  void corsIsClosedByDefault() throws Exception {
    HttpResponse<String> answer =
        send(
            request("/api/v1/rollouts")
                .header("Origin", "https://elsewhere.example")
                .header("Access-Control-Request-Method", "POST")
                .header("Access-Control-Request-Headers", "authorization, content-type")
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()));
    assertThat(answer.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    assertThat(answer.headers().firstValue("Access-Control-Allow-Methods")).isEmpty();

    HttpResponse<String> nodes =
        send(
            request("/api/v1/nodes")
                .header("Origin", "https://elsewhere.example")
                .header("Authorization", ApiTokens.bearer(ApiTokens.viewer())));
    assertThat(nodes.statusCode()).isEqualTo(200);
    assertThat(nodes.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
  }

  @Test
  void aTokenWithoutAnyRoleMayReadNothing() throws Exception {
    HttpResponse<String> response =
        call(new Operation("GET", "/api/v1/nodes", null), ApiTokens.of("no-role"));
    assertThat(response.statusCode()).isEqualTo(403);
  }

  /**
   * The provider's tokens name their user's roles in several places; only Fleetwave's own client
   * roles count. A realm admin, another application's admin or a member of a group called admin,
   * each with a token issued for Fleetwave, is nobody here.
   */
  @Test
  void rolesComeOnlyFromFleetwavesClientRoles() throws Exception {
    Operation rebuild = new Operation("POST", "/api/v1/admin/projection/rebuild", null);
    Operation nodes = new Operation("GET", "/api/v1/nodes", null);
    for (String elsewhere : List.of("realm-admin", "other-client-admin", "groups-admin")) {
      for (Operation operation : List.of(rebuild, nodes)) {
        HttpResponse<String> refused = call(operation, ApiTokens.of(elsewhere));
        assertThat(refused.statusCode()).as(elsewhere + ": " + operation.key()).isEqualTo(403);
        assertProblem(refused, elsewhere);
      }
    }
    HttpResponse<String> clientAdmin = call(rebuild, ApiTokens.admin());
    assertThat(clientAdmin.statusCode()).as(clientAdmin.body()).isNotIn(401, 403).isLessThan(500);
  }

  @Test
  void refusedTokensAre401WithAReasonAndNeverLogged() throws Exception {
    Map<String, String> expectations =
        Map.of(
            "expired", "expired",
            "other-issuer", "another issuer",
            "other-key", "signature does not verify",
            "other-audience", "another audience",
            "no-audience", "another audience",
            "garbage", "malformed");
    List<String> logged = new ArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            synchronized (logged) {
              logged.add(record.getMessage() + " " + String.valueOf(record.getThrown()));
              for (Throwable t = record.getThrown(); t != null; t = t.getCause()) {
                logged.add(String.valueOf(t.getMessage()));
              }
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Logger root = Logger.getLogger("");
    root.addHandler(capture);
    try {
      Operation nodes = new Operation("GET", "/api/v1/nodes", null);
      for (Map.Entry<String, String> expectation : expectations.entrySet()) {
        String token =
            expectation.getKey().equals("garbage")
                ? "not.a-jwt.at-all"
                : ApiTokens.of(expectation.getKey());
        HttpResponse<String> response = call(nodes, token);
        assertThat(response.statusCode()).as(expectation.getKey()).isEqualTo(401);
        assertProblem(response, expectation.getKey());
        JsonNode problem = EventCodec.mapper().readTree(response.body());
        assertThat(problem.path("detail").asText())
            .as(expectation.getKey())
            .contains(expectation.getValue())
            .doesNotContain(token);
        synchronized (logged) {
          assertThat(logged).noneMatch(line -> line.contains(token));
        }
      }
    } finally {
      root.removeHandler(capture);
    }
    synchronized (logged) {
      assertThat(logged)
          .noneMatch(line -> line.contains(ApiTokens.admin()))
          .noneMatch(line -> line.contains("PRIVATE KEY"));
    }
  }

  @Test
  void basicCredentialsAreNotATokenAnd401() throws Exception {
    HttpResponse<String> response =
        send(request("/api/v1/nodes").header("Authorization", "Basic YWRtaW46YWRtaW4="));
    assertThat(response.statusCode()).isEqualTo(401);
    assertProblem(response, "basic");
  }

  private static void assertProblem(HttpResponse<String> response, String what) throws IOException {
    assertThat(response.headers().firstValue("Content-Type"))
        .as(what)
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    JsonNode problem = EventCodec.mapper().readTree(response.body());
    assertThat(problem.path("status").asInt()).as(what).isEqualTo(response.statusCode());
    assertThat(problem.path("detail").asText()).as(what).isNotBlank();
  }

  /** Every operation under /api of the served OpenAPI document. */
  private List<Operation> operations() throws Exception {
    HttpResponse<String> response = send(request("/q/openapi?format=json"));
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode paths = EventCodec.mapper().readTree(response.body()).path("paths");
    List<Operation> operations = new ArrayList<>();
    for (Map.Entry<String, JsonNode> path : paths.properties()) {
      if (!path.getKey().startsWith("/api/")) {
        continue;
      }
      for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
        String method = op.getKey().toUpperCase(java.util.Locale.ROOT);
        if (!Set.of("GET", "POST", "PUT", "DELETE", "PATCH").contains(method)) {
          continue;
        }
        Iterator<String> types = op.getValue().path("requestBody").path("content").fieldNames();
        operations.add(
            new Operation(
                method,
                path.getKey(),
                types.hasNext() ? types.next() : null,
                op.getValue().path(NodeEnrolmentResource.NODE_CREDENTIAL).asBoolean(false)));
      }
    }
    return operations;
  }

  /**
   * Calls the operation with harmless arguments: path parameters naming nothing that exists, an
   * empty body, and a rebuild bound that is refused before any work. Each is still checked for its
   * token and role first.
   */
  private HttpResponse<String> call(Operation operation, String token) throws Exception {
    String path = operation.path();
    Matcher parameter = PATH_PARAMETER.matcher(path);
    StringBuilder concrete = new StringBuilder();
    while (parameter.find()) {
      String value =
          switch (parameter.group(1)) {
            case "id" -> UUID.randomUUID().toString();
            case "action" -> "pause";
            default -> "no-such-" + parameter.group(1);
          };
      parameter.appendReplacement(concrete, value);
    }
    parameter.appendTail(concrete);
    if (operation.key().equals("POST /api/v1/admin/projection/rebuild")) {
      concrete.append("?timeoutSeconds=0");
    }
    HttpRequest.Builder request = request(concrete.toString());
    if (token != null) {
      request.header("Authorization", ApiTokens.bearer(token));
    }
    if (operation.contentType() != null) {
      String body = operation.contentType().contains("json") ? "{}" : "a=b";
      request.header("Content-Type", operation.contentType());
      request.method(operation.method(), HttpRequest.BodyPublishers.ofString(body));
    } else {
      request.method(operation.method(), HttpRequest.BodyPublishers.noBody());
    }
    return send(request);
  }

  /** A request to {@code path} (query string included) of the control plane, bounded. */
  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(base.resolve(path)).timeout(CALL_BOUND);
  }

  private static HttpResponse<String> send(HttpRequest.Builder request)
      throws IOException, InterruptedException {
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
