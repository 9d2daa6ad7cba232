package io.fleetwave.controlplane.app;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The backing services an operator configures, each through an environment variable or a system
 * property: Kafka ({@code KAFKA_BOOTSTRAP_SERVERS}) and PostgreSQL (one URL is enough: {@code
 * QUARKUS_DATASOURCE_REACTIVE_URL}, or the JDBC one). Read before Quarkus starts, so the production
 * control plane can refuse to start without them instead of waiting on {@code localhost}, and the
 * demo can start embedded services for whatever is missing.
 */
public final class ServiceSettings {
  /** One setting as the operator spells it, with what it is for. */
  public record Setting(String variable, String property, String meaning) {
    String describe() {
      return variable + " (or -D" + property + "): " + meaning;
    }
  }

  public static final Setting KAFKA =
      new Setting(
          "KAFKA_BOOTSTRAP_SERVERS",
          "kafka.bootstrap.servers",
          "the Kafka bootstrap servers, e.g. kafka:9092 (TLS/SASL through KAFKA_SECURITY_PROTOCOL,"
              + " KAFKA_SASL_MECHANISM, KAFKA_SASL_JAAS_CONFIG)");
  public static final Setting DATABASE =
      new Setting(
          "QUARKUS_DATASOURCE_REACTIVE_URL",
          "quarkus.datasource.reactive.url",
          "the PostgreSQL URL, e.g. postgresql://db:5432/fleetwave (credentials in"
              + " QUARKUS_DATASOURCE_USERNAME / QUARKUS_DATASOURCE_PASSWORD or in the URL)");

  /**
   * Who may call the API: without a provider (or a key) to check tokens with, every /api call would
   * be refused, a control plane that runs and serves nobody.
   */
  public static final Setting IDENTITY =
      new Setting(
          "QUARKUS_OIDC_AUTH_SERVER_URL",
          "quarkus.oidc.auth-server-url",
          "the OIDC provider whose tokens the API accepts and the dashboard signs in with, e.g."
              + " https://keycloak.example.com/realms/fleet, with QUARKUS_OIDC_CLIENT_ID (and"
              + " QUARKUS_OIDC_CREDENTIALS_SECRET for the dashboard); or, to check bearer tokens"
              + " with a key, QUARKUS_OIDC_PUBLIC_KEY and QUARKUS_OIDC_TOKEN_ISSUER");

  static final Setting PUBLIC_KEY =
      new Setting(
          "QUARKUS_OIDC_PUBLIC_KEY",
          "quarkus.oidc.public-key",
          "the key bearer tokens are checked with");
  public static final Setting JDBC =
      new Setting(
          "QUARKUS_DATASOURCE_JDBC_URL",
          "quarkus.datasource.jdbc.url",
          "Flyway's JDBC URL; derived from the reactive URL when not set");
  static final Setting USERNAME =
      new Setting("QUARKUS_DATASOURCE_USERNAME", "quarkus.datasource.username", "database user");
  static final Setting PASSWORD =
      new Setting(
          "QUARKUS_DATASOURCE_PASSWORD", "quarkus.datasource.password", "database password");

  private final Map<String, String> env;
  private final Properties system;

  private ServiceSettings(Map<String, String> env, Properties system) {
    this.env = env;
    this.system = system;
  }

  public static ServiceSettings of(Map<String, String> env, Properties system) {
    return new ServiceSettings(env, system);
  }

  public boolean kafkaConfigured() {
    return value(KAFKA).isPresent();
  }

  public boolean postgresConfigured() {
    return value(DATABASE).isPresent() || value(JDBC).isPresent();
  }

  /** The settings production needs and does not have, in the order to fix them. */
  public List<Setting> missing() {
    List<Setting> missing = new ArrayList<>();
    if (!kafkaConfigured()) {
      missing.add(KAFKA);
    }
    if (!postgresConfigured()) {
      missing.add(DATABASE);
    }
    if (value(IDENTITY).isEmpty() && value(PUBLIC_KEY).isEmpty()) {
      missing.add(IDENTITY);
    }
    return missing;
  }

  /** What the production control plane prints before it exits for want of {@link #missing()}. */
  public String refusal() {
    StringBuilder text =
        new StringBuilder("fleetwave: the control plane cannot start, these settings are missing:");
    for (Setting setting : missing()) {
      text.append("\n  ").append(setting.describe());
    }
    return text.append(
            "\nSet them (deploy/README.md lists every setting), or run ./fleetwave demo to try"
                + " Fleetwave on embedded services.")
        .toString();
  }

  /**
   * System properties that complete the database settings from the one URL given: the JDBC URL
   * Flyway needs from the reactive URL (or the reverse), and the user and password from the URL's
   * user info when they are not set on their own. Empty when nothing is configured.
   *
   * @throws IllegalArgumentException naming the setting, when its URL is not a PostgreSQL URL
   */
  public Map<String, String> derivedDatabaseProperties() {
    Map<String, String> derived = new LinkedHashMap<>();
    Optional<String> reactive = value(DATABASE);
    Optional<String> jdbc = value(JDBC);
    if (reactive.isPresent()) {
      PostgresUrl url = PostgresUrl.parse(DATABASE, reactive.get());
      if (jdbc.isEmpty()) {
        derived.put(JDBC.property(), url.jdbc(new DatabaseTls(this::value).jdbcParameters()));
      }
      if (url.user().isPresent() && value(USERNAME).isEmpty()) {
        derived.put(USERNAME.property(), url.user().get());
        url.password().ifPresent(password -> derived.put(PASSWORD.property(), password));
      }
    } else if (jdbc.isPresent()) {
      PostgresUrl url = PostgresUrl.parse(JDBC, jdbc.get());
      derived.put(DATABASE.property(), url.reactive());
    }
    return derived;
  }

  /**
   * Why PostgreSQL could be reached in plain text although {@code FLEETWAVE_DATABASE_REQUIRE_TLS}
   * is on, one line per connection (the reactive pool, Flyway's JDBC URL); empty when it is off or
   * both are encrypted.
   *
   * @throws IllegalArgumentException naming the setting, when a TLS setting has no valid value
   */
  public List<String> plainDatabaseConnections() {
    Optional<String> jdbc = value(JDBC);
    if (jdbc.isEmpty()) {
      jdbc = Optional.ofNullable(derivedDatabaseProperties().get(JDBC.property()));
    }
    return new DatabaseTls(this::value).plainConnections(jdbc);
  }

  /**
   * What the production control plane prints before it exits for {@link
   * #plainDatabaseConnections()}.
   */
  public String plainDatabaseRefusal() {
    StringBuilder text =
        new StringBuilder(
            "fleetwave: the control plane cannot start: "
                + DatabaseTls.REQUIRE.variable()
                + " is true, and PostgreSQL could be reached in plain text:");
    for (String plain : plainDatabaseConnections()) {
      text.append("\n  ").append(plain);
    }
    return text.append(
            "\nThe database holds the enrolled node keys and the specs the control plane signs;"
                + " connect with TLS (deploy/README.md, Settings), or set "
                + DatabaseTls.REQUIRE.variable()
                + "=false to allow plain connections.")
        .toString();
  }

  Optional<String> value(Setting setting) {
    String fromEnv = env.get(setting.variable());
    if (fromEnv != null && !fromEnv.isBlank()) {
      return Optional.of(fromEnv.strip());
    }
    String fromSystem = system.getProperty(setting.property());
    return fromSystem == null || fromSystem.isBlank()
        ? Optional.empty()
        : Optional.of(fromSystem.strip());
  }

  /**
   * A PostgreSQL URL in either spelling: {@code postgresql://[user[:password]@]host[:port]/db[?…]}
   * (also {@code postgres://}, {@code vertx-reactive:postgresql://}) or {@code
   * jdbc:postgresql://host[:port]/db[?…]}. Only the scheme and the user info differ between them.
   */
  record PostgresUrl(String rest, Optional<String> user, Optional<String> password) {
    private static final List<String> PREFIXES =
        List.of(
            "vertx-reactive:postgresql://", "jdbc:postgresql://", "postgresql://", "postgres://");

    static PostgresUrl parse(Setting setting, String value) {
      String rest = null;
      for (String prefix : PREFIXES) {
        if (value.startsWith(prefix)) {
          rest = value.substring(prefix.length());
          break;
        }
      }
      if (rest == null || rest.isEmpty() || rest.startsWith("/")) {
        throw new IllegalArgumentException(
            setting.variable()
                + " must be a PostgreSQL URL such as postgresql://db:5432/fleetwave, got '"
                + redacted(value)
                + "'");
      }
      int slash = rest.indexOf('/');
      String authority = slash < 0 ? rest : rest.substring(0, slash);
      int at = authority.lastIndexOf('@');
      if (at < 0) {
        return new PostgresUrl(rest, Optional.empty(), Optional.empty());
      }
      String userInfo = authority.substring(0, at);
      String withoutUser = rest.substring(at + 1);
      int colon = userInfo.indexOf(':');
      String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
      Optional<String> password =
          colon < 0 ? Optional.empty() : Optional.of(decode(userInfo.substring(colon + 1)));
      return new PostgresUrl(withoutUser, Optional.of(decode(user)), password);
    }

    String jdbc(List<String> parameters) {
      if (parameters.isEmpty()) {
        return "jdbc:postgresql://" + rest;
      }
      return "jdbc:postgresql://"
          + rest
          + (rest.contains("?") ? "&" : "?")
          + String.join("&", parameters);
    }

    String reactive() {
      return "postgresql://" + rest;
    }

    private static String decode(String part) {
      return URLDecoder.decode(part, StandardCharsets.UTF_8);
    }

    /** The URL without its password, for messages. */
    private static String redacted(String value) {
      try {
        URI uri = new URI(value);
        if (uri.getUserInfo() != null && uri.getUserInfo().contains(":")) {
          return value.replace(uri.getRawUserInfo(), uri.getUserInfo().split(":", 2)[0] + ":***");
        }
      } catch (URISyntaxException notAUri) {
        // Nothing to redact that we could find; the value is shown as given.
      }
      return value;
    }
  }
}
