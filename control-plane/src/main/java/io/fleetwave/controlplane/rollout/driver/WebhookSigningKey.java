package io.fleetwave.controlplane.rollout.driver;

import io.fleetwave.controlplane.security.CommandLineSecrets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The webhook's HMAC-SHA256 key, signing each POST as Standard Webhooks 1.0 does
 * (standardwebhooks.com): {@code webhook-signature: v1,<base64 HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<body>">}, so a receiver can check it with any Standard
 * Webhooks library. The key is written {@code whsec_<base64 of 24 to 64 random bytes>}, as that
 * standard serializes it, and comes from a file ({@value #FILE_PROPERTY}, a mounted Secret) or the
 * environment ({@code FLEETWAVE_ROLLOUT_DRIVER_WEBHOOK_SECRET}); never from the command line.
 */
public final class WebhookSigningKey {
  static final String PROPERTY = "fleetwave.rollout.driver-webhook.secret";
  static final String FILE_PROPERTY = PROPERTY + "-file";
  static final String PREFIX = "whsec_";

  /** Standard Webhooks' bounds on a symmetric secret. */
  static final int MIN_BYTES = 24;

  static final int MAX_BYTES = 64;
  private static final String HMAC = "HmacSHA256";

  private final SecretKeySpec key;

  private WebhookSigningKey(byte[] key) {
    this.key = new SecretKeySpec(key, HMAC);
  }

  /**
   * The key as configured: the file wins over the value.
   *
   * @param jvmArguments the JVM's command-line arguments, checked for the secret
   * @throws IllegalArgumentException when neither is set, the secret is on the command line, the
   *     file cannot be read or the secret is malformed (naming which, never quoting it)
   */
  static WebhookSigningKey configured(
      Optional<Path> file, Optional<String> value, List<String> jvmArguments) {
    CommandLineSecrets.refuse(
        PROPERTY,
        "mount it from a Kubernetes Secret and set "
            + FILE_PROPERTY
            + " (env FLEETWAVE_ROLLOUT_DRIVER_WEBHOOK_SECRET_FILE), or set"
            + " FLEETWAVE_ROLLOUT_DRIVER_WEBHOOK_SECRET from the Secret",
        jvmArguments);
    if (file.isPresent()) {
      return parse(read(file.get()), FILE_PROPERTY + " " + file.get());
    }
    return parse(
        value
            .filter(v -> !v.isBlank())
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        DriverExecutorProducer.EXECUTOR
                            + "=webhook needs a signing secret, which is not set: every request"
                            + " is signed so that the receiver can refuse forged ones. Set "
                            + FILE_PROPERTY
                            + " (env FLEETWAVE_ROLLOUT_DRIVER_WEBHOOK_SECRET_FILE, a mounted"
                            + " Secret) or FLEETWAVE_ROLLOUT_DRIVER_WEBHOOK_SECRET to "
                            + PREFIX
                            + "<base64 of 24 to 64 random bytes>, e.g. whsec_$(openssl rand"
                            + " -base64 32)")),
        PROPERTY);
  }

  /**
   * @param source where the secret came from, for the message
   * @throws IllegalArgumentException when it is not {@code whsec_} and the base64 of 24 to 64 bytes
   */
  static WebhookSigningKey parse(String secret, String source) {
    String text = secret.strip();
    if (!text.startsWith(PREFIX)) {
      throw malformed(source, "does not start with " + PREFIX);
    }
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(text.substring(PREFIX.length()));
    } catch (IllegalArgumentException e) {
      throw malformed(source, "is not base64 after " + PREFIX);
    }
    if (bytes.length < MIN_BYTES || bytes.length > MAX_BYTES) {
      throw malformed(source, "holds " + bytes.length + " bytes");
    }
    return new WebhookSigningKey(bytes);
  }

  private static IllegalArgumentException malformed(String source, String reason) {
    return new IllegalArgumentException(
        "the webhook signing secret from "
            + source
            + " "
            + reason
            + ": expected "
            + PREFIX
            + "<base64 of "
            + MIN_BYTES
            + " to "
            + MAX_BYTES
            + " random bytes>, e.g. whsec_$(openssl rand -base64 32)");
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(FILE_PROPERTY + ": cannot read " + file + ": " + e, e);
    }
  }

  /** The {@code webhook-signature} value of one request: {@code v1,<base64 HMAC-SHA256>}. */
  String sign(String id, long timestamp, byte[] body) {
    Mac mac;
    try {
      mac = Mac.getInstance(HMAC);
      mac.init(key);
    } catch (GeneralSecurityException e) {
      // Every Java runtime has HmacSHA256 (a required algorithm): this is no configuration fault.
      throw new IllegalStateException("HmacSHA256 is not available: " + e, e);
    }
    mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
    return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
  }

  @Override
  public String toString() {
    return "WebhookSigningKey[redacted]";
  }
}
