package io.fleetwave.agent.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fleetwave.embedded.Keytool;
import io.fleetwave.events.security.NodeEventSigner;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's enrolment with a control plane served over HTTPS with a private CA's certificate
 * ({@code --control-plane-ca}): it enrolls when the certificate chains to the given CA and names
 * the host it connects to, and otherwise stops at once saying why (a certificate it does not trust
 * does not become trusted by waiting) and sends nothing: not the key, not the credential.
 */
class EnrolmentOverTlsIT {
  private static final String PASSWORD = "changeit-test";
  private static final Duration PATIENCE = Duration.ofMinutes(5);

  @TempDir Path dir;
  private HttpsServer controlPlane;
  private final List<String> received = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    if (controlPlane != null) {
      controlPlane.stop(0);
    }
  }

  @Test
  void itEnrollsOverHttpsTrustingTheGivenCa() throws Exception {
    Path ca = serveWithCertificateFor("control-plane", "SAN=dns:localhost,ip:127.0.0.1");

    NodeEventSigner key =
        enrolment(Enrolment.httpClient(ca)).establish("gpu-tls-1", Optional.empty());

    assertThat(received).hasSize(1);
    assertThat(received.getFirst()).contains(key.publicKeyPem().lines().skip(1).findFirst().get());
  }

  @Test
  void aCertificateOfAnotherCaStopsItAtOnceSendingNothing() throws Exception {
    serveWithCertificateFor("control-plane", "SAN=dns:localhost,ip:127.0.0.1");
    Path stranger = certificate("stranger", "SAN=dns:localhost,ip:127.0.0.1");

    long started = System.nanoTime();
    assertThatThrownBy(
            () ->
                enrolment(Enrolment.httpClient(stranger)).establish("gpu-tls-2", Optional.empty()))
        .isInstanceOf(EnrolmentRefusedException.class)
        .hasMessageContaining("presented a certificate this agent does not trust")
        .hasMessageContaining("--control-plane-ca");
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("at once, not after the enrolment's patience")
        .isLessThan(Duration.ofSeconds(30));
    assertThat(received).isEmpty();
  }

  @Test
  void withoutTheCaTheJvmsTrustStoreDoesNotTrustAPrivateCa() throws Exception {
    serveWithCertificateFor("control-plane", "SAN=dns:localhost,ip:127.0.0.1");

    assertThatThrownBy(
            () -> enrolment(Enrolment.httpClient()).establish("gpu-tls-3", Optional.empty()))
        .isInstanceOf(EnrolmentRefusedException.class)
        .hasMessageContaining("does not trust");
    assertThat(received).isEmpty();
  }

  @Test
  void aCertificateOfTheTrustedCaForAnotherHostStopsIt() throws Exception {
    Path ca = serveWithCertificateFor("elsewhere", "SAN=dns:elsewhere.example");

    assertThatThrownBy(
            () -> enrolment(Enrolment.httpClient(ca)).establish("gpu-tls-4", Optional.empty()))
        .isInstanceOf(EnrolmentRefusedException.class)
        .hasMessageContaining("does not trust");
    assertThat(received).isEmpty();
  }

  @Test
  void aCaFileWithoutACertificateIsRefusedNamingIt() throws Exception {
    Path notPem = Files.writeString(dir.resolve("not-a-ca.pem"), "no certificate here\n");

    assertThatThrownBy(() -> Enrolment.httpClient(notPem))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--control-plane-ca " + notPem);
  }

  private Enrolment enrolment(java.net.http.HttpClient http) {
    URI uri = URI.create("https://localhost:" + controlPlane.getAddress().getPort());
    return new Enrolment(
        uri, new BootstrapCredential.JoinToken("abcdef.0123456789abcdef"), PATIENCE, http);
  }

  /**
   * Starts the stand-in control plane on HTTPS with a new self-signed certificate (its own CA)
   * under {@code alias}; answers every enrolment 201.
   *
   * @return the certificate as PEM, the CA to trust
   */
  private Path serveWithCertificateFor(String alias, String subjectAlternativeNames)
      throws Exception {
    Path pem = certificate(alias, subjectAlternativeNames);
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(dir.resolve(alias + ".p12"))) {
      keys.load(in, PASSWORD.toCharArray());
    }
    KeyManagerFactory keyManagers =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, PASSWORD.toCharArray());
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keyManagers.getKeyManagers(), null, null);
    controlPlane =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    controlPlane.setHttpsConfigurator(new HttpsConfigurator(tls));
    controlPlane.createContext(
        "/api/v1/nodes/",
        exchange -> {
          try (exchange) {
            received.add(
                new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(201, body.length);
            exchange.getResponseBody().write(body);
          }
        });
    controlPlane.start();
    return pem;
  }

  /** A key pair and self-signed certificate under {@code alias}; its certificate as PEM. */
  private Path certificate(String alias, String subjectAlternativeNames) {
    String store = alias + ".p12";
    Keytool.generateKeyPair(
        dir, store, PASSWORD, alias, "CN=" + alias, subjectAlternativeNames, "bc:c");
    Keytool.exportCertificate(dir, store, PASSWORD, alias, alias + ".pem");
    return dir.resolve(alias + ".pem");
  }
}
