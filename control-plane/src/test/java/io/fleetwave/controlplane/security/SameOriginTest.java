package io.fleetwave.controlplane.security;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.core.MultivaluedHashMap;
import jakarta.ws.rs.core.MultivaluedMap;
import org.junit.jupiter.api.Test;

class SameOriginTest {
  @Test
  void theBrowsersFetchMetadataDecidesWhereItIsSent() {
    assertThat(SameOrigin.refusal(headers("Sec-Fetch-Site", "same-origin"), null)).isEmpty();
    for (String site : new String[] {"same-site", "cross-site", "none"}) {
      assertThat(
              SameOrigin.refusal(
                  headers("Sec-Fetch-Site", site, "Origin", "https://fleet"), "fleet"))
          .as(site)
          .hasValueSatisfying(why -> assertThat(why).contains(site));
    }
  }

  @Test
  void withoutFetchMetadataTheOriginMustNameTheHost() {
    assertThat(SameOrigin.refusal(headers("Origin", "https://fleet.example"), "fleet.example"))
        .as("HTTPS ended at a proxy")
        .isEmpty();
    assertThat(SameOrigin.refusal(headers("Origin", "http://Fleet:8080"), "fleet:8080")).isEmpty();
    assertThat(SameOrigin.refusal(headers("Origin", "http://fleet:8081"), "fleet:8080"))
        .isPresent();
    assertThat(SameOrigin.refusal(headers("Origin", "https://evil.fleet"), "fleet")).isPresent();
    assertThat(SameOrigin.refusal(headers("Origin", "null"), "fleet")).isPresent();
    assertThat(SameOrigin.refusal(headers(), "fleet"))
        .hasValueSatisfying(why -> assertThat(why).contains("neither"));
  }

  private static MultivaluedMap<String, String> headers(String... namesAndValues) {
    MultivaluedMap<String, String> headers = new MultivaluedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      headers.add(namesAndValues[i], namesAndValues[i + 1]);
    }
    return headers;
  }
}
