package io.fleetwave.controlplane.paging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PageRequestTest {
  @Test
  void defaultsToTheFirstPageOfFifty() {
    assertThat(PageRequest.parse(null, "")).isEqualTo(new PageRequest(0, 50));
  }

  @Test
  void computesTheOffset() {
    assertThat(PageRequest.parse("3", "500").offset()).isEqualTo(1500);
  }

  @Test
  void refusesOutOfRangeOrNonNumericValuesNamingTheParameter() {
    assertThatThrownBy(() -> PageRequest.parse("-1", null))
        .hasMessageContaining("'page' must be 0 or more");
    assertThatThrownBy(() -> PageRequest.parse(null, "501"))
        .hasMessageContaining("'size' must be between 1 and 500, got '501'");
    assertThatThrownBy(() -> PageRequest.parse(null, "0")).hasMessageContaining("'size'");
    assertThatThrownBy(() -> PageRequest.parse("x", null))
        .hasMessageContaining("'page' is not an integer");
    assertThatThrownBy(() -> PageRequest.parse(null, "99999999999"))
        .hasMessageContaining("'size' is not an integer");
  }
}
