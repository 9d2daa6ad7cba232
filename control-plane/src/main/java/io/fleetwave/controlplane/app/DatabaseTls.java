package io.fleetwave.controlplane.app;

import io.fleetwave.controlplane.app.ServiceSettings.Setting;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * TLS to PostgreSQL, for both of the control plane's connections: the reactive pool (Quarkus'
 * {@code quarkus.datasource.reactive.*} TLS settings) and Flyway's JDBC URL, which is derived from
 * the reactive URL and so must carry the same protection ({@code sslmode}, {@code sslrootcert}).
 * With {@link #REQUIRE} on, settings that would let either connection go in plain text stop the
 * start: the database holds the enrolled node keys and the desired specs the control plane signs.
 *
 * <p>The SSL modes are libpq's, which both drivers share: {@code disable}, {@code allow}, {@code
 * prefer} (may fall back to plain text), {@code require}, {@code verify-ca}, {@code verify-full}.
 */
final class DatabaseTls {
  static final Setting SSL_MODE =
      new Setting(
          "QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE",
          "quarkus.datasource.reactive.postgresql.ssl-mode",
          "the reactive pool's SSL mode (disable, allow, prefer, require, verify-ca, verify-full)");
  static final Setting TRUSTED_CA =
      new Setting(
          "QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM_CERTS",
          "quarkus.datasource.reactive.trust-certificate-pem.certs",
          "the PEM file of the CA the database's certificate is verified against");
  static final Setting REQUIRE =
      new Setting(
          "FLEETWAVE_DATABASE_REQUIRE_TLS",
          "fleetwave.database.require-tls",
          "refuse to start with database settings that allow a plain connection (default false)");

  private static final List<String> MODES =
      List.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full");

  /** The modes that never send a byte in plain text. */
  private static final Set<String> ENCRYPTED = Set.of("require", "verify-ca", "verify-full");

  private final Function<Setting, Optional<String>> settings;

  DatabaseTls(Function<Setting, Optional<String>> settings) {
    this.settings = settings;
  }

  /**
   * The JDBC URL parameters that give Flyway the reactive pool's TLS: {@code sslmode} and, with a
   * trusted CA, {@code sslrootcert}. Empty when the reactive pool sets no SSL mode.
   *
   * @throws IllegalArgumentException naming the setting, for an unknown mode or several CA files
   */
  List<String> jdbcParameters() {
    Optional<String> mode = reactiveMode();
    if (mode.isEmpty()) {
      return List.of();
    }
    List<String> parameters = new ArrayList<>(List.of("sslmode=" + mode.get()));
    Optional<String> ca = settings.apply(TRUSTED_CA);
    if (ca.isPresent()) {
      if (ca.get().contains(",")) {
        throw new IllegalArgumentException(
            TRUSTED_CA.variable()
                + " names several files, and Flyway's JDBC URL (sslrootcert) takes one: put the"
                + " CAs in one PEM file, or set "
                + ServiceSettings.JDBC.variable()
                + " yourself");
      }
      parameters.add("sslrootcert=" + ca.get());
    }
    return parameters;
  }

  /**
   * Why the settings allow a plain connection although {@link #REQUIRE} is on: one line per
   * connection that could go in plain text. Empty when it is off or both connections are encrypted.
   *
   * @param jdbcUrl Flyway's JDBC URL, as given or derived
   */
  List<String> plainConnections(Optional<String> jdbcUrl) {
    if (!required()) {
      return List.of();
    }
    List<String> plain = new ArrayList<>();
    Optional<String> reactive = reactiveMode();
    if (reactive.isEmpty() || !ENCRYPTED.contains(reactive.get())) {
      plain.add(
          "the reactive pool's SSL mode is "
              + reactive.map(m -> "'" + m + "'").orElse("not set (prefer)")
              + ": set "
              + SSL_MODE.variable()
              + " to verify-full (with "
              + TRUSTED_CA.variable()
              + " and QUARKUS_DATASOURCE_REACTIVE_HOSTNAME_VERIFICATION_ALGORITHM=HTTPS),"
              + " verify-ca or require");
    }
    Optional<String> jdbc = jdbcUrl.map(DatabaseTls::jdbcMode);
    if (jdbc.isPresent() && !ENCRYPTED.contains(jdbc.get())) {
      plain.add(
          "Flyway's JDBC URL has sslmode="
              + jdbc.get()
              + ": set "
              + ServiceSettings.JDBC.variable()
              + " with sslmode=verify-full, or leave it unset to derive it from the reactive"
              + " pool's TLS settings");
    }
    return plain;
  }

  private boolean required() {
    Optional<String> value = settings.apply(REQUIRE);
    if (value.isEmpty()) {
      return false;
    }
    return switch (value.get().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new IllegalArgumentException(
              REQUIRE.variable() + " must be true or false, got '" + value.get() + "'");
    };
  }

  private Optional<String> reactiveMode() {
    return settings.apply(SSL_MODE).map(DatabaseTls::mode);
  }

  /** A mode as libpq spells it; Quarkus also takes the enum's own spelling (VERIFY_FULL). */
  private static String mode(String value) {
    String mode = value.toLowerCase(Locale.ROOT).replace('_', '-');
    if (!MODES.contains(mode)) {
      throw new IllegalArgumentException(
          SSL_MODE.variable() + " must be one of " + MODES + ", got '" + value + "'");
    }
    return mode;
  }

  /**
   * The SSL mode PgJDBC uses for a URL: its {@code sslmode}, else {@code verify-full} for {@code
   * ssl=true} (PgJDBC's reading of the older parameter), else its default {@code prefer}.
   */
  static String jdbcMode(String url) {
    int q = url.indexOf('?');
    String sslmode = null;
    boolean ssl = false;
    if (q >= 0) {
      for (String parameter : url.substring(q + 1).split("&", -1)) {
        int eq = parameter.indexOf('=');
        String name = eq < 0 ? parameter : parameter.substring(0, eq);
        String value =
            eq < 0 ? "" : URLDecoder.decode(parameter.substring(eq + 1), StandardCharsets.UTF_8);
        if (name.equals("sslmode")) {
          sslmode = value.toLowerCase(Locale.ROOT);
        } else if (name.equals("ssl")) {
          ssl = value.isEmpty() || value.equalsIgnoreCase("true");
        }
      }
    }
    if (sslmode != null) {
      return sslmode;
    }
    return ssl ? "verify-full" : "prefer";
  }
}
