package io.fleetwave.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TableTest {
  @Test
  void columnsAreAlignedToTheWidestCellWithoutTrailingSpaces() {
    String table =
        new Table("name", "zone", "gpus")
            .row("gpu-node-1", "zone-a", "8x H100")
            .row("n2", null, "")
            .render();
    assertThat(table)
        .isEqualTo(
            """
            NAME         ZONE     GPUS
            gpu-node-1   zone-a   8x H100
            n2           -        -
            """);
  }

  @Test
  void aRowOfTheWrongWidthIsRefused() {
    assertThatThrownBy(() -> new Table("a", "b").row("1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 cells in a table of 2 columns");
  }

  @Test
  void newlinesInACellDoNotBreakTheRow() {
    assertThat(new Table("x").row("a\nb").render()).isEqualTo("X\na b\n");
  }

  @Test
  void theProgressBarIsProportional() {
    assertThat(RolloutCommand.bar(0, 8, 10)).isEqualTo("[----------]");
    assertThat(RolloutCommand.bar(4, 8, 10)).isEqualTo("[#####-----]");
    assertThat(RolloutCommand.bar(8, 8, 10)).isEqualTo("[##########]");
    assertThat(RolloutCommand.bar(0, 0, 4)).isEqualTo("[####]");
  }
}
