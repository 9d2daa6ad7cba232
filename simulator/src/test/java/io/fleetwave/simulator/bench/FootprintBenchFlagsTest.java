package io.fleetwave.simulator.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The footprint bench measures the JVM flags the agent image runs with, not others. */
class FootprintBenchFlagsTest {
  private static final Pattern JVM_FLAG = Pattern.compile("<jvmFlag>([^<]+)</jvmFlag>");

  @Test
  void benchFlagsAreTheAgentImageFlags() throws Exception {
    String pom = Files.readString(Path.of("../node-agent/pom.xml"));
    Matcher flags = JVM_FLAG.matcher(pom);
    List<String> image =
        flags
            .results()
            .map(m -> m.group(1))
            // The bench adds native access to every JVM it starts, the baseline included.
            .filter(flag -> !flag.startsWith("--enable-native-access"))
            .toList();

    assertThat(image).as("jib jvmFlags of node-agent/pom.xml").isNotEmpty();
    assertThat(String.join(" ", image)).isEqualTo(FootprintBench.DEFAULT_FLAGS);
  }
}
