package io.fleetwave.controlplane.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ExternalServicesTest {
  @Test
  void nothingConfiguredMeansBothEmbedded() {
    assertThat(ExternalServices.detect(Map.of(), new Properties()))
        .isEqualTo(new ExternalServices(false, false));
  }

  @Test
  void environmentOrSystemPropertiesSelectExternalServicesIndependently() {
    assertThat(
            ExternalServices.detect(Map.of("KAFKA_BOOTSTRAP_SERVERS", "k:9092"), new Properties()))
        .isEqualTo(new ExternalServices(true, false));
    Properties system = new Properties();
    system.setProperty("quarkus.datasource.reactive.url", "postgresql://db/fleet");
    assertThat(ExternalServices.detect(Map.of(), system))
        .isEqualTo(new ExternalServices(false, true));
    assertThat(
            ExternalServices.detect(
                Map.of(
                    "QUARKUS_DATASOURCE_JDBC_URL",
                    "jdbc:postgresql://db/f",
                    "KAFKA_BOOTSTRAP_SERVERS",
                    " "),
                new Properties()))
        .isEqualTo(new ExternalServices(false, true));
  }
}
