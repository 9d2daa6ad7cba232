package io.fleetwave.embedded;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * The embedded broker as a production cluster is set up for Fleetwave (Strimzi's TLS listener with
 * SCRAM-SHA-512 and simple authorization): a SASL_SSL listener with a self-signed certificate for
 * {@code localhost}, SCRAM-SHA-512 users, and ACLs enforced by KRaft's {@code StandardAuthorizer}
 * with nothing allowed that no ACL allows.
 *
 * <p>The test kit's plaintext listener stays, for the operator's side of a test only: its principal
 * ({@code User:ANONYMOUS}) is the super user that creates topics, users and ACLs, as an
 * administrator would; {@link #bootstrapServers()} names it. Clients under test connect to {@link
 * #secureBootstrapServers()} with {@link #clientSettings}.
 */
public final class SecuredKafka implements KafkaBroker {
  public static final String MECHANISM = "SCRAM-SHA-512";
  private static final String LISTENER = "SECURED";
  private static final String PREFIX = "listener.name.secured.";
  private static final Duration ADMIN_BOUND = Duration.ofSeconds(30);

  private final EmbeddedKafka kafka;
  private final Path caCertificate;

  private SecuredKafka(EmbeddedKafka kafka, Path caCertificate) {
    this.kafka = kafka;
    this.caCertificate = caCertificate;
  }

  /**
   * Makes a key pair and self-signed certificate for {@code localhost} in {@code directory} (with
   * the JDK's keytool), then starts the broker; bounded like {@link EmbeddedKafka#start()}.
   */
  public static SecuredKafka start(Path directory) {
    String password = HexFormat.of().formatHex(SecureRandom.getSeed(16));
    Path keystore = directory.resolve("broker.p12");
    Path certificate = directory.resolve("ca.crt");
    Keytool.generateKeyPair(
        directory,
        keystore.toString(),
        password,
        "broker",
        "CN=localhost",
        "SAN=dns:localhost,ip:127.0.0.1");
    Keytool.exportCertificate(
        directory, keystore.toString(), password, "broker", certificate.toString());
    EmbeddedKafka kafka = EmbeddedKafka.start(nodes -> brokerProperties(nodes, keystore, password));
    return new SecuredKafka(kafka, certificate);
  }

  private static Map<String, String> brokerProperties(
      TestKitNodes nodes, Path keystore, String password) {
    String plain = nodes.brokerListenerName().value();
    String controller = nodes.controllerListenerName().value();
    return Map.ofEntries(
        Map.entry(
            "listeners",
            "%s://localhost:0,%s://localhost:0,%s://localhost:0"
                .formatted(plain, controller, LISTENER)),
        Map.entry(
            "listener.security.protocol.map",
            "%s:%s,%s:%s,%s:%s"
                .formatted(
                    plain,
                    nodes.brokerListenerProtocol().name,
                    controller,
                    nodes.controllerListenerProtocol().name,
                    LISTENER,
                    SecurityProtocol.SASL_SSL.name)),
        Map.entry(PREFIX + "sasl.enabled.mechanisms", MECHANISM),
        Map.entry(
            PREFIX + MECHANISM.toLowerCase(java.util.Locale.ROOT) + ".sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required;"),
        Map.entry(PREFIX + "ssl.keystore.type", "PKCS12"),
        Map.entry(PREFIX + "ssl.keystore.location", keystore.toString()),
        Map.entry(PREFIX + "ssl.keystore.password", password),
        Map.entry(PREFIX + "ssl.key.password", password),
        Map.entry(
            "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"),
        Map.entry("allow.everyone.if.no.acl.found", "false"),
        // The plaintext and controller listeners' principal: the broker itself and the operator.
        Map.entry("super.users", "User:ANONYMOUS"));
  }

  /** The operator's plaintext listener (super user): topics, users and ACLs are made through it. */
  @Override
  public String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  /** The SASL_SSL listener, where credentials and ACLs apply. */
  public String secureBootstrapServers() {
    return "localhost:" + kafka.boundPort(LISTENER);
  }

  /** The broker's certificate (PEM), which clients trust as their CA. */
  public Path caCertificate() {
    return caCertificate;
  }

  /**
   * Kafka client settings for {@code user} on the SASL_SSL listener, as an operator writes them: a
   * PEM truststore and the SCRAM login. The password is whatever the caller says (a wrong one is a
   * test too).
   */
  public Map<String, String> clientSettings(String user, String password) {
    return Map.of(
        CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
        secureBootstrapServers(),
        CommonClientConfigs.SECURITY_PROTOCOL_CONFIG,
        SecurityProtocol.SASL_SSL.name,
        SaslConfigs.SASL_MECHANISM,
        MECHANISM,
        SaslConfigs.SASL_JAAS_CONFIG,
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"%s\" password=\"%s\";"
            .formatted(user, password),
        SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG,
        "PEM",
        SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG,
        caCertificate.toString());
  }

  /**
   * Creates (or replaces) a SCRAM-SHA-512 user and grants it {@code grants}; returns once the
   * broker authenticates the user and enforces the grants (bounded).
   */
  public void addUser(String user, String password, List<KafkaAccess.Grant> grants) {
    String principal = "User:" + user;
    List<AclBinding> acls = new ArrayList<>();
    grants.forEach(g -> acls.add(g.binding(principal)));
    try (Admin admin = admin()) {
      admin
          .alterUserScramCredentials(
              List.of(
                  new UserScramCredentialUpsertion(
                      user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), password)))
          .all()
          .get(ADMIN_BOUND.toSeconds(), TimeUnit.SECONDS);
      if (!acls.isEmpty()) {
        admin.createAcls(acls).all().get(ADMIN_BOUND.toSeconds(), TimeUnit.SECONDS);
      }
      awaitVisible(admin, user, acls.size());
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot create Kafka user " + user + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Kafka user " + user + " was not created within " + ADMIN_BOUND, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating Kafka user " + user, e);
    }
  }

  /**
   * The controller has the user and its ACLs once the calls return; the broker, which authenticates
   * and authorizes, learns them from the metadata log a moment later.
   */
  private static void awaitVisible(Admin admin, String user, int aclCount)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + ADMIN_BOUND.toNanos();
    AclBindingFilter mine =
        new AclBindingFilter(
            org.apache.kafka.common.resource.ResourcePatternFilter.ANY,
            new org.apache.kafka.common.acl.AccessControlEntryFilter(
                "User:" + user,
                null,
                org.apache.kafka.common.acl.AclOperation.ANY,
                org.apache.kafka.common.acl.AclPermissionType.ANY));
    while (true) {
      boolean userKnown =
          !admin
              .describeUserScramCredentials(List.of(user))
              .all()
              .get(ADMIN_BOUND.toSeconds(), TimeUnit.SECONDS)
              .isEmpty();
      int acls =
          admin.describeAcls(mine).values().get(ADMIN_BOUND.toSeconds(), TimeUnit.SECONDS).size();
      if (userKnown && acls >= aclCount) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException(
            "the broker did not show user " + user + " and its " + aclCount + " ACLs");
      }
      Thread.sleep(50); // polling interval of a bounded wait for the metadata log
    }
  }

  private Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers(),
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            (int) ADMIN_BOUND.toMillis()));
  }

  /** Writes {@link #clientSettings} as a Java properties file (e.g. an agent's --kafka-config). */
  public static Path writeProperties(Map<String, String> settings, Path file) {
    StringBuilder text = new StringBuilder();
    new java.util.TreeMap<>(settings)
        .forEach(
            (key, value) ->
                text.append(key).append('=').append(value.replace("\\", "\\\\")).append('\n'));
    try {
      return Files.writeString(file, text);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    kafka.close();
  }
}
