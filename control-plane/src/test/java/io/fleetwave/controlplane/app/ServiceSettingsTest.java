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
}
