package io.fleetwave.agent.identity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.security.EnrolledKey;
import io.fleetwave.events.security.NodeEventSigner;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLHandshakeException;

/**
 * Gives the node its identity: the key (kept in the state directory of a writable host, made anew
 * in memory at each start of a read-only one) enrolled with the control plane against the bootstrap
 * credential, once per key. An unreachable control plane is tried again (each call bounded, 1 s, 2
 * s, 4 s... at most 30 s apart) until {@code patience} runs out, and so is a 429 (too many
 * attempts), after its Retry-After; a refusal stops at once with the control plane's reason.
 */
public final class Enrolment {
  private static final System.Logger LOG = System.getLogger(Enrolment.class.getName());
  private static final Duration CALL_BOUND = Duration.ofSeconds(10);
  private static final Duration MAX_PAUSE = Duration.ofSeconds(30);

  private final URI controlPlane;
  private final BootstrapCredential credential;
  private final Duration patience;
  private final HttpClient http;

  public Enrolment(URI controlPlane, BootstrapCredential credential, Duration patience) {
    this(controlPlane, credential, patience, httpClient());
  }

  /**
   * As {@link #Enrolment(URI, BootstrapCredential, Duration)}, over a client shared with other
   * enrolments: a simulated fleet enrolls thousands of nodes, each with its own credential, and a
   * client per node would hold a selector thread and a connection pool of its own.
   */
  public Enrolment(
      URI controlPlane, BootstrapCredential credential, Duration patience, HttpClient http) {
    this.controlPlane = controlPlane;
    this.credential = credential;
    this.patience = patience;
    this.http = http;
  }

  /** The HTTP client enrolments use (each call bounded by {@link #CALL_BOUND}). */
  public static HttpClient httpClient() {
    return HttpClient.newBuilder().connectTimeout(CALL_BOUND).build();
  }

  /**
   * As {@link #httpClient()}, trusting for HTTPS only the CA certificates of {@code caFile} (PEM)
   * instead of the JVM's trust store: a control plane served with a private CA's certificate.
   *
   * @throws IllegalArgumentException naming the file when it holds no readable certificate
   */
  public static HttpClient httpClient(Path caFile) {
    return HttpClient.newBuilder()
        .connectTimeout(CALL_BOUND)
        .sslContext(ControlPlaneTrust.of(caFile))
        .build();
  }

  /**
   * The node's enrolled key.
   *
   * @param stateDirectory where a writable host keeps its key; empty on a read-only host
   * @throws EnrolmentRefusedException when the control plane refuses, naming why
   * @throws IllegalStateException when it did not answer within the patience
   */
  public NodeEventSigner establish(String node, Optional<Path> stateDirectory)
      throws InterruptedException {
    return establishIdentity(node, stateDirectory).key();
  }

  /**
   * The node's enrolled key and the keys it may trust as its own (see {@link NodeIdentity}): on a
   * host that enrolled earlier and keeps its key, only that key.
   *
   * @param stateDirectory where a writable host keeps its key; empty on a read-only host
   * @throws EnrolmentRefusedException when the control plane refuses, naming why
   * @throws IllegalStateException when it did not answer within the patience
   */
  public NodeIdentity establishIdentity(String node, Optional<Path> stateDirectory)
      throws InterruptedException {
    Optional<NodeKeyFile> kept = stateDirectory.map(NodeKeyFile::new);
    NodeEventSigner key = kept.map(NodeKeyFile::loadOrCreate).orElseGet(NodeEventSigner::generate);
    if (kept.isPresent() && kept.get().enrolledWith(key).isPresent()) {
      LOG.log(Level.INFO, "node {0}: key {1} is enrolled already", node, key.keyId());
      return new NodeIdentity(
          withMac(node, key, kept.get().eventMacKey(key)),
          Map.of(key.keyId(), own(node, key)),
          kept.get().kafkaLogin());
    }
    String answer = enroll(node, key);
    Optional<KafkaLogin> login = kafkaLogin(node, answer);
    Optional<String> macKey = eventMacKey(answer);
    // The login first: a restart between the two enrolls again rather than go on without it.
    kept.ifPresent(file -> file.keepKafkaLogin(login));
    kept.ifPresent(file -> file.markEnrolled(key, controlPlane.toString(), macKey));
    LOG.log(
        Level.INFO,
        "node {0}: key {1} enrolled with {2} ({3}); events are signed with it{4}",
        node,
        key.keyId(),
        controlPlane,
        stateDirectory.isPresent() ? "kept in the state directory" : "in memory: read-only host",
        macKey.isPresent() ? " and carry a MAC for the control plane" : "");
    return new NodeIdentity(withMac(node, key, macKey), ownKeys(node, key, answer), login);
  }

  /**
   * The control plane's agreement key in the answer ({@code eventMacKey}), if it gave one (an older
   * control plane, or one without a command key, does not).
   */
  private static Optional<String> eventMacKey(String answer) {
    try {
      JsonNode key = EventCodec.mapper().readTree(answer).path("eventMacKey");
      return key.isTextual() ? Optional.of(key.asText()) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * The key, its events also carrying a MAC for the control plane's agreement key; without one, or
   * with one that is not an X25519 key, the events go signed only (checked at the signature's
   * cost).
   */
  private static NodeEventSigner withMac(
      String node, NodeEventSigner key, Optional<String> controlPlaneKey) {
    if (controlPlaneKey.isEmpty()) {
      return key;
    }
    try {
      return key.withMacFor(controlPlaneKey.get());
    } catch (IllegalArgumentException e) {
      LOG.log(
          Level.WARNING,
          "node {0}: the control plane''s event MAC key is unusable ({1}); events go signed only",
          node,
          e.getMessage());
      return key;
    }
  }

  /**
   * The node's own Kafka login in the answer, if the control plane gave one.
   *
   * @throws IllegalArgumentException when the answer is unreadable or its login unusable
   */
  private Optional<KafkaLogin> kafkaLogin(String node, String answer) {
    try {
      Optional<KafkaLogin> login = KafkaLogin.in(EventCodec.mapper().readTree(answer));
      login.ifPresent(
          l ->
              LOG.log(
                  Level.INFO,
                  "node {0}: the control plane gave the node its own Kafka user {1} ({2})",
                  node,
                  l.username(),
                  l.mechanism()));
      return login;
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "node '"
              + node
              + "': the enrolment answer of "
              + controlPlane
              + " has no usable Kafka login: "
              + e.getMessage(),
          e);
    }
  }

  private static EnrolledKey own(String node, NodeEventSigner key) {
    return EnrolledKey.of(node, key.publicKeyPem(), false);
  }

  /**
   * This key and the node's keys the answer lists ({@code nodeKeys}); a key whose id does not match
   * its PEM is left out. An answer without the list (an older control plane) gives this key.
   */
  private static Map<String, EnrolledKey> ownKeys(String node, NodeEventSigner key, String answer) {
    Map<String, EnrolledKey> keys = new HashMap<>();
    keys.put(key.keyId(), own(node, key));
    try {
      JsonNode listed = EventCodec.mapper().readTree(answer).path("nodeKeys");
      for (JsonNode one : listed) {
        EnrolledKey enrolled = EnrolledKey.of(node, one.path("publicKey").asText(), false);
        if (enrolled.keyId().equals(one.path("keyId").asText())) {
          keys.put(enrolled.keyId(), enrolled);
        } else {
          LOG.log(
              Level.WARNING,
              "node {0}: the control plane listed key {1} with a public key of another id;"
                  + " not trusted",
              node,
              one.path("keyId").asText());
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      LOG.log(
          Level.WARNING,
          "node {0}: the enrolment answer lists no readable node keys ({1}); only key {2} is"
              + " trusted as the node's own",
          node,
          e.toString(),
          key.keyId());
    }
    return keys;
  }

  /** The answer's body once enrolled. */
  private String enroll(String node, NodeEventSigner key) throws InterruptedException {
    Instant deadline = Instant.now().plus(patience);
    Duration pause = Duration.ofSeconds(1);
    while (true) {
      String failure;
      try {
        HttpResponse<String> answer =
            http.send(request(node, key), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() == 201 || answer.statusCode() == 200) {
          return answer.body();
        }
        if (answer.statusCode() == 429) {
          // Too many attempts (a fleet restarting at once): wait as long as asked, within patience.
          pause = retryAfter(answer).orElse(pause);
          failure = "answered 429: " + detail(answer.body());
        } else if (answer.statusCode() >= 400 && answer.statusCode() < 500) {
          throw new EnrolmentRefusedException(
              "the control plane at "
                  + controlPlane
                  + " refused to enroll node '"
                  + node
                  + "' ("
                  + answer.statusCode()
                  + "): "
                  + detail(answer.body()));
        } else {
          failure = "answered " + answer.statusCode() + ": " + detail(answer.body());
        }
      } catch (SSLHandshakeException e) {
        if (ControlPlaneTrust.isUntrusted(e)) {
          // Not the network: a certificate that does not chain to the trusted CAs or names another
          // host stays so; waiting out the patience would only hide the reason.
          throw new EnrolmentRefusedException(
              "the control plane at "
                  + controlPlane
                  + " presented a certificate this agent does not trust for it (the CAs of"
                  + " --control-plane-ca, else the JVM's trust store): "
                  + e.getMessage());
        }
        failure = e.toString();
      } catch (IOException e) {
        failure = e.toString();
      }
      if (Instant.now().plus(pause).isAfter(deadline)) {
        throw new IllegalStateException(
            "node '"
                + node
                + "' could not enroll with "
                + controlPlane
                + " within "
                + patience
                + " (last: "
                + failure
                + ")");
      }
      LOG.log(
          Level.WARNING,
          "node {0}: enrolment with {1} failed ({2}); trying again in {3}",
          node,
          controlPlane,
          failure,
          pause);
      Thread.sleep(pause);
      pause = pause.multipliedBy(2).compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : pause.multipliedBy(2);
    }
  }

  private HttpRequest request(String node, NodeEventSigner key) {
    ObjectNode body = EventCodec.mapper().createObjectNode();
    body.put("publicKey", key.publicKeyPem());
    body.put(credential.field(), credential.secret());
    URI uri =
        controlPlane.resolve(
            "/api/v1/nodes/" + URLEncoder.encode(node, StandardCharsets.UTF_8) + "/enrolment");
    return HttpRequest.newBuilder(uri)
        .timeout(CALL_BOUND)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
        .build();
  }

  /** The Retry-After in seconds the answer carries, at most the longest pause. */
  private static Optional<Duration> retryAfter(HttpResponse<String> answer) {
    return answer
        .headers()
        .firstValue("Retry-After")
        .flatMap(
            value -> {
              try {
                long seconds = Long.parseLong(value.strip());
                return seconds < 0
                    ? Optional.empty()
                    : Optional.of(Duration.ofSeconds(Math.min(seconds, MAX_PAUSE.toSeconds())));
              } catch (NumberFormatException e) {
                return Optional.empty(); // an HTTP date: the usual back-off instead
              }
            });
  }

  /** The problem's detail, else the start of the body. */
  private static String detail(String body) {
    try {
      JsonNode problem = EventCodec.mapper().readTree(body);
      if (problem != null && problem.hasNonNull("detail")) {
        return problem.get("detail").asText();
      }
    } catch (IOException e) {
      // not JSON: the text itself
    }
    return body.length() > 200 ? body.substring(0, 200) + "..." : body;
  }
}
