package io.fleetwave.simulator.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The footprint bench measures the JVM options the agent image runs with, read from their home. */
class FootprintBenchFlagsTest {

  @Test
  void benchReadsTheAgentImageFlagsFromNodeAgentPom() throws Exception {
    // The whole list as Jib writes it into the entrypoint, in order, native access included.
    assertThat(AgentImageFlags.fromRepository())
        .isEqualTo(AgentImageFlags.of(Path.of("../node-agent/pom.xml")))
        .startsWith("--enable-native-access=ALL-UNNAMED")
        .contains("-XX:+UseSerialGC")
        .anyMatch(flag -> flag.startsWith("-Xmx"));
  }

  @Test
  void onlyJibsContainerFlagsCountNotCommentsOrOtherPlugins(@TempDir Path dir) throws Exception {
    Path pom =
        Files.writeString(
            dir.resolve("pom.xml"),
            """
            <project xmlns="http://maven.apache.org/POM/4.0.0">
              <build><plugins>
                <plugin>
                  <artifactId>other-plugin</artifactId>
                  <configuration><container><jvmFlags><jvmFlag>-Xmx1g</jvmFlag></jvmFlags></container></configuration>
                </plugin>
                <plugin>
                  <groupId>com.google.cloud.tools</groupId>
                  <artifactId>jib-maven-plugin</artifactId>
                  <configuration><container><jvmFlags>
                    <!-- <jvmFlag>-Xint</jvmFlag> -->
                    <jvmFlag> -Xmx24m </jvmFlag>
                    <jvmFlag>-XX:+UseSerialGC</jvmFlag>
                  </jvmFlags></container></configuration>
                </plugin>
              </plugins></build>
            </project>
            """);

    assertThat(AgentImageFlags.of(pom)).containsExactly("-Xmx24m", "-XX:+UseSerialGC");
  }

  @Test
  void aPomWithoutJibFlagsIsAClearError(@TempDir Path dir) throws Exception {
    Path pom = Files.writeString(dir.resolve("pom.xml"), "<project><build/></project>");

    assertThatThrownBy(() -> AgentImageFlags.of(pom))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no <jvmFlag> in jib-maven-plugin");
  }
}
