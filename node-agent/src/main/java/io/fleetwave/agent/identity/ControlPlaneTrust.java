package io.fleetwave.agent.identity;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;

/**
 * The CAs an agent trusts for its control plane's HTTPS (--control-plane-ca): the certificates of
 * one PEM file, in place of the JVM's trust store, so a control plane served with a private CA's
 * certificate (cert-manager's, a cluster's own) can be reached without changing the image. The
 * JDK's client still checks the host name against the certificate.
 */
final class ControlPlaneTrust {
  private ControlPlaneTrust() {}

  /**
   * A TLS context trusting exactly the certificates in {@code caFile}.
   *
   * @throws IllegalArgumentException naming the file when it cannot be read or holds no certificate
   */
  static SSLContext of(Path caFile) {
    Collection<? extends Certificate> certificates;
    try (InputStream in = Files.newInputStream(caFile)) {
      certificates =
          java.security.cert.CertificateFactory.getInstance("X.509").generateCertificates(in);
    } catch (IOException | CertificateException e) {
      throw new IllegalArgumentException(
          "--control-plane-ca " + caFile + ": not a readable PEM certificate file: " + e, e);
    }
    if (certificates.isEmpty()) {
      throw new IllegalArgumentException(
          "--control-plane-ca " + caFile + ": holds no certificate (PEM, BEGIN CERTIFICATE)");
    }
    try {
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      int i = 0;
      for (Certificate certificate : certificates) {
        trusted.setCertificateEntry("ca-" + i++, certificate);
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot make a TLS context from " + caFile + ": " + e, e);
    }
  }

  /**
   * Whether a handshake failed on the certificate (not chained to a trusted CA, or for another host
   * name), which no retry changes, rather than on the connection.
   */
  static boolean isUntrusted(SSLHandshakeException e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof CertificateException) {
        return true;
      }
    }
    return false;
  }
}
