package io.fleetwave.controlplane.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ServiceSettingsTest {
  private static ServiceSettings env(String... pairs) {
    Map<String, String> env = new java.util.HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return ServiceSettings.of(env, new Properties());
  }

  @Test
  void nothingConfiguredNamesEverySettingAndTheDemo() {
    ServiceSettings settings = env();
    assertThat(settings.missing())
        .containsExactly(ServiceSettings.KAFKA, ServiceSettings.DATABASE, ServiceSettings.IDENTITY);
    assertThat(settings.refusal())
        .contains(
            "KAFKA_BOOTSTRAP_SERVERS",
            "QUARKUS_DATASOURCE_REACTIVE_URL",
            "QUARKUS_OIDC_AUTH_SERVER_URL",
            "QUARKUS_OIDC_PUBLIC_KEY",
            "./fleetwave demo");
  }

  @Test
  void aProviderOrAPublicKeyConfiguresWhoMayCallTheApi() {
    assertThat(env("QUARKUS_OIDC_AUTH_SERVER_URL", "https://idp/realms/fleet").missing())
        .doesNotContain(ServiceSettings.IDENTITY);
    assertThat(env("QUARKUS_OIDC_PUBLIC_KEY", "MIIB...").missing())
        .doesNotContain(ServiceSettings.IDENTITY);
    assertThat(env("QUARKUS_OIDC_CLIENT_ID", "fleetwave").missing())
        .contains(ServiceSettings.IDENTITY);
  }

  @Test
  void environmentOrSystemPropertiesConfigureEachServiceIndependently() {
    assertThat(env("KAFKA_BOOTSTRAP_SERVERS", "k:9092").missing())
        .containsExactly(ServiceSettings.DATABASE, ServiceSettings.IDENTITY);
    Properties system = new Properties();
    system.setProperty("quarkus.datasource.reactive.url", "postgresql://db/fleet");
    assertThat(ServiceSettings.of(Map.of(), system).missing())
        .containsExactly(ServiceSettings.KAFKA, ServiceSettings.IDENTITY);
    assertThat(
            env(
                    "QUARKUS_DATASOURCE_JDBC_URL",
                    "jdbc:postgresql://db/f",
                    "KAFKA_BOOTSTRAP_SERVERS",
                    " ")
                .missing())
        .containsExactly(ServiceSettings.KAFKA, ServiceSettings.IDENTITY);
  }

  @Test
  void flywaysJdbcUrlIsDerivedFromTheReactiveUrlWithItsQuery() {
    assertThat(
            env("QUARKUS_DATASOURCE_REACTIVE_URL", "postgresql://db:5432/fleet?sslmode=require")
                .derivedDatabaseProperties())
        .containsExactly(
            Map.entry(
                "quarkus.datasource.jdbc.url", "jdbc:postgresql://db:5432/fleet?sslmode=require"));
  }

  @Test
  void credentialsInTheUrlBecomeUserAndPasswordUnlessSetOnTheirOwn() {
    assertThat(
            env("QUARKUS_DATASOURCE_REACTIVE_URL", "postgres://app:p%40ss@db-rw:5432/app")
                .derivedDatabaseProperties())
        .containsExactly(
            Map.entry("quarkus.datasource.jdbc.url", "jdbc:postgresql://db-rw:5432/app"),
            Map.entry("quarkus.datasource.username", "app"),
            Map.entry("quarkus.datasource.password", "p@ss"));
    assertThat(
            env(
                    "QUARKUS_DATASOURCE_REACTIVE_URL", "postgresql://app:x@db/app",
                    "QUARKUS_DATASOURCE_USERNAME", "other")
                .derivedDatabaseProperties())
        .containsOnlyKeys("quarkus.datasource.jdbc.url");
  }

  @Test
  void aJdbcUrlAloneGivesTheReactiveOne() {
    assertThat(
            env("QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://db:5432/f")
                .derivedDatabaseProperties())
        .containsExactly(Map.entry("quarkus.datasource.reactive.url", "postgresql://db:5432/f"));
  }

  @Test
  void aUrlThatIsNotPostgresIsRefusedNamingTheSettingWithoutItsPassword() {
    assertThatThrownBy(
            () ->
                env("QUARKUS_DATASOURCE_REACTIVE_URL", "mysql://root:secret@db/app")
                    .derivedDatabaseProperties())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("QUARKUS_DATASOURCE_REACTIVE_URL must be a PostgreSQL URL")
        .hasMessageContaining("root:***")
        .hasMessageNotContaining("secret");
  }

  private static final String[] DEPLOY_TLS = {
    "QUARKUS_DATASOURCE_REACTIVE_URL", "postgresql://fleetwave-db-rw:5432/app",
    "QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE", "verify-full",
    "QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM", "true",
    "QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM_CERTS", "/etc/fleetwave/postgres-ca/ca.crt",
    "QUARKUS_DATASOURCE_REACTIVE_HOSTNAME_VERIFICATION_ALGORITHM", "HTTPS",
    "FLEETWAVE_DATABASE_REQUIRE_TLS", "true"
  };

  @Test
  void flywaysDerivedJdbcUrlCarriesTheReactivePoolsTlsModeAndCa() {
    assertThat(env(DEPLOY_TLS).derivedDatabaseProperties())
        .containsEntry(
            "quarkus.datasource.jdbc.url",
            "jdbc:postgresql://fleetwave-db-rw:5432/app?sslmode=verify-full"
                + "&sslrootcert=/etc/fleetwave/postgres-ca/ca.crt");
    assertThat(env(DEPLOY_TLS).plainDatabaseConnections()).isEmpty();
    assertThat(
            env(
                    "QUARKUS_DATASOURCE_REACTIVE_URL",
                    "postgresql://db/app?application_name=fw",
                    "QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE",
                    "REQUIRE")
                .derivedDatabaseProperties())
        .containsEntry(
            "quarkus.datasource.jdbc.url",
            "jdbc:postgresql://db/app?application_name=fw&sslmode=require");
  }

  @Test
  void requiredTlsRefusesAReactivePoolWithoutTlsNamingTheSetting() {
    ServiceSettings plain =
        env(
            "QUARKUS_DATASOURCE_REACTIVE_URL",
            "postgresql://db/app",
            "FLEETWAVE_DATABASE_REQUIRE_TLS",
            "true");
    assertThat(plain.plainDatabaseConnections())
        .as("the reactive pool, and Flyway's URL derived from it: both would go in plain text")
        .satisfiesExactly(
            reactive ->
                assertThat(reactive)
                    .contains("reactive pool", "QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE"),
            jdbc -> assertThat(jdbc).contains("Flyway's JDBC URL has sslmode=prefer"));
    assertThat(plain.plainDatabaseRefusal())
        .contains("FLEETWAVE_DATABASE_REQUIRE_TLS is true", "plain text");
    ServiceSettings prefer =
        env(
            "QUARKUS_DATASOURCE_REACTIVE_URL",
            "postgresql://db/app",
            "QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE",
            "prefer",
            "FLEETWAVE_DATABASE_REQUIRE_TLS",
            "true");
    assertThat(prefer.plainDatabaseConnections())
        .as("prefer falls back to plain text: both connections are refused")
        .hasSize(2);
  }

  @Test
  void requiredTlsRefusesAnExplicitJdbcUrlWithoutTls() {
    java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(DEPLOY_TLS));
    args.addAll(java.util.List.of("QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://db/app"));
    assertThat(env(args.toArray(String[]::new)).plainDatabaseConnections())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains("Flyway's JDBC URL has sslmode=prefer", "QUARKUS_DATASOURCE_JDBC_URL");
    assertThat(DatabaseTls.jdbcMode("jdbc:postgresql://db/app?ssl=true")).isEqualTo("verify-full");
    assertThat(DatabaseTls.jdbcMode("jdbc:postgresql://db/app?sslmode=disable&ssl=true"))
        .isEqualTo("disable");
  }

  @Test
  void plainConnectionsAreAllowedUnlessTlsIsRequired() {
    assertThat(
            env("QUARKUS_DATASOURCE_REACTIVE_URL", "postgresql://db/app")
                .plainDatabaseConnections())
        .isEmpty();
    assertThatThrownBy(
            () ->
                env(
                        "QUARKUS_DATASOURCE_REACTIVE_URL",
                        "postgresql://db/app",
                        "FLEETWAVE_DATABASE_REQUIRE_TLS",
                        "yes")
                    .plainDatabaseConnections())
        .hasMessageContaining("FLEETWAVE_DATABASE_REQUIRE_TLS must be true or false");
    assertThatThrownBy(
            () ->
                env(
                        "QUARKUS_DATASOURCE_REACTIVE_URL",
                        "postgresql://db/app",
                        "QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE",
                        "on")
                    .derivedDatabaseProperties())
        .hasMessageContaining("QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE must be one of");
  }
}
